import { defineConfig } from 'drizzle-kit';

// Generates SQL migrations from src/db/schema.ts into ./drizzle (committed). The migrations
// table lives in holdfast_migrations, outside the service's own schema.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './drizzle',
  schemaFilter: ['webhooks'],
  migrations: { schema: 'holdfast_migrations', table: 'webhooks' },
});

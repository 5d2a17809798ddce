import { defineConfig, type ViteUserConfig } from 'vitest/config';

/**
 * Shared vitest settings for every package. Workspace packages resolve to their TypeScript sources
 * (the `@holdfast/source` export condition), so tests never need a prior build.
 */
export function holdfastVitestConfig(overrides: ViteUserConfig['test'] = {}): ViteUserConfig {
  return defineConfig({
    resolve: { conditions: ['@holdfast/source', 'module', 'node', 'import', 'default'] },
    ssr: { resolve: { conditions: ['@holdfast/source', 'module', 'node', 'import', 'default'] } },
    test: {
      environment: 'node',
      include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
      testTimeout: 30_000,
      hookTimeout: 60_000,
      ...overrides,
    },
  });
}

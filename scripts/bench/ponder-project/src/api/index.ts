// Ponder requires an API file; the bench reads Ponder's tables directly, so it serves nothing.
import { Hono } from 'hono';

export default new Hono();

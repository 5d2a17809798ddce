// The public face of the indexing module: what other modules use of it. Another module imports
// from here, never from its files (the architecture test fails on that).

export type { IndexerRepository } from './repository.js';

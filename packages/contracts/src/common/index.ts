// What every surface shares: error codes and AppError, envelopes, pagination, formats, ids, primitives.
export * from './domain.js';
export * from './endpoint.js';
export * from './envelope.js';
export * from './errors.js';
export * from './ids.js';
export * from './pagination.js';

// Everything that crosses a process boundary, by surface (docs/architecture.md). One entry point:
// services import from `@holdfast/contracts`, never from a file inside it.
import './common/formats.js';

export * from './commands/index.js';
export * from './common/index.js';
export * from './events/index.js';
export * from './payments/index.js';
export * from './workspace/index.js';

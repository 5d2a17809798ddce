import { holdfastVitestConfig } from '../../vitest.shared.js';

// Each file starts the services as processes: one file at a time, and room for the set-up on a
// busy 2-core machine.
export default holdfastVitestConfig({
  infrastructure: true,
  test: { hookTimeout: 180_000, testTimeout: 120_000, fileParallelism: false },
});

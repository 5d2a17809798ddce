import { holdfastVitestConfig } from '../../vitest.shared.js';

// The metric-name check starts the four services as processes: room for their start on a busy 2-core machine.
export default holdfastVitestConfig({
  infrastructure: true,
  test: { hookTimeout: 180_000, testTimeout: 120_000, fileParallelism: false },
});

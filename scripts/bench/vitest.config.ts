import { holdfastVitestConfig } from '../../vitest.shared.js';

// The unit tests of the benchmarks' pure parts (rounds, verdicts, options, percentiles, profile
// summary): no server, no database; the benchmarks themselves run in ./scripts/test's smoke form.
export default holdfastVitestConfig();

import { holdfastVitestConfig } from '../../vitest.shared.js';

export default holdfastVitestConfig({ infrastructure: true });

// The public face of the platforms module: what other modules use of it. Another module imports
// from here, never from its files (the architecture test fails on that).

export { platformBillingOf } from './billing.js';
export { checkFinalitySettings, platformFinality, requiredFinalityOf } from './finality.js';
export type { PlatformRow, PlatformsRepository } from './repository.js';
export { readPlatformSettings } from './repository.js';
export type { PlatformsService } from './service.js';

import type { Bus } from './bus.js';
import { type ConsumerSettings, DEFAULT_CONSUMER_SETTINGS, ensureConsumers } from './consumer.js';
import { DEFAULT_STREAM_SETTINGS, ensureStreams, type StreamSettings } from './streams.js';

/**
 * The NATS setup (issue 28 item 7): creates the streams and every durable consumer of
 * DURABLE_CONSUMERS under the bus's prefix, or brings their settings up to date. Run before the
 * processes, as their migrations are (payments-service's bundle/nats-setup.js, as the NATS user
 * `nats-setup`); safe to run again and at once from two places. The processes then only publish
 * and bind: their NATS users administer neither streams nor consumers.
 */
export async function setUpNats(bus: Bus, settings: { streams?: StreamSettings; consumers?: ConsumerSettings } = {}): Promise<void> {
  await ensureStreams(bus, settings.streams ?? DEFAULT_STREAM_SETTINGS);
  await ensureConsumers(bus, settings.consumers ?? DEFAULT_CONSUMER_SETTINGS);
}

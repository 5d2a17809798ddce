import { STREAMS, type StreamName } from '@holdfast/contracts';
import { DiscardPolicy, JetStreamApiCodes, JetStreamApiError, RetentionPolicy, StorageType, type StreamConfig } from '@nats-io/jetstream';
import { type Bus, prefixed, prefixedName } from './bus.js';

export interface StreamSettings {
  /** JetStream drops a message whose Nats-Msg-Id it has seen within this window. */
  duplicateWindowMs: number;
  /** How long events stay replayable in the stream. */
  maxAgeMs: number;
  replicas: number;
}

export const DEFAULT_STREAM_SETTINGS: StreamSettings = {
  duplicateWindowMs: 2 * 60 * 60 * 1000,
  maxAgeMs: 30 * 24 * 60 * 60 * 1000,
  replicas: 1,
};

const ms = (value: number) => value * 1_000_000;
/** JetStream API error: a stream with that name already exists (not in the client's enum). */
const STREAM_NAME_IN_USE = 10058;

/** The stream's name under the bus prefix. */
export function streamName(bus: Bus, stream: StreamName): string {
  return prefixedName(bus, STREAMS[stream].name);
}

/**
 * Creates the streams, or brings their settings up to date (the NATS setup, setUpNats): safe to
 * run again, and at once from two places.
 */
export async function ensureStreams(bus: Bus, settings: StreamSettings = DEFAULT_STREAM_SETTINGS): Promise<void> {
  for (const key of Object.keys(STREAMS) as StreamName[]) {
    const config: Partial<StreamConfig> & { name: string } = {
      name: streamName(bus, key),
      subjects: STREAMS[key].subjects.map((s) => prefixed(bus, s)),
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      discard: DiscardPolicy.Old,
      duplicate_window: ms(settings.duplicateWindowMs),
      max_age: ms(settings.maxAgeMs),
      num_replicas: settings.replicas,
    };
    try {
      await bus.jsm.streams.info(config.name);
      await bus.jsm.streams.update(config.name, config);
    } catch (error) {
      if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound) {
        try {
          await bus.jsm.streams.add(config);
        } catch (addError) {
          // Another instance created it between our info and add.
          if (!(addError instanceof JetStreamApiError && addError.code === STREAM_NAME_IN_USE)) throw addError;
        }
      } else {
        throw error;
      }
    }
  }
}

/** Removes this bus's streams (tests clean up their prefix with it). */
export async function deleteStreams(bus: Bus): Promise<void> {
  for (const key of Object.keys(STREAMS) as StreamName[]) {
    await bus.jsm.streams.delete(streamName(bus, key)).catch(() => undefined);
  }
}

// The OpenTelemetry SDK of a process (docs/operations.md, "Tracing"; ADR 23). Off by default: only
// when an OTLP endpoint is configured (or a test passes an exporter) is a tracer provider
// registered; until then the API calls in @holdfast/logging, http-kit, messaging and db are no-ops.

import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ParentBasedSampler,
  SimpleSpanProcessor,
  type SpanExporter,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';

export { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';

export interface TracingSettings {
  /** `service.name` of every span. */
  serviceName: string;
  /** OTLP/HTTP collector base URL (spans go to `<endpoint>/v1/traces`); unset: tracing off. */
  endpoint?: string;
  /** Headers sent to the collector (authentication). */
  headers?: Record<string, string>;
  /** Share of new traces recorded (0 to 1); a trace continued from a message follows its parent's choice. */
  sampleRatio?: number;
  /** Tests: spans go here, synchronously, instead of to a collector. */
  exporter?: SpanExporter;
}

export interface Tracing {
  /** Exports what is pending and unregisters the SDK. */
  shutdown: () => Promise<void>;
}

/** Registers the SDK globally when tracing is on; returns undefined (nothing registered) when off. */
export function startTracing(settings: TracingSettings): Tracing | undefined {
  if (!settings.endpoint && !settings.exporter) return undefined;
  const processor = settings.exporter
    ? new SimpleSpanProcessor({ exporter: settings.exporter })
    : new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: `${settings.endpoint?.replace(/\/$/, '')}/v1/traces`, headers: settings.headers }),
      });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.serviceName }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(settings.sampleRatio ?? 1) }),
    spanProcessors: [processor],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return {
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

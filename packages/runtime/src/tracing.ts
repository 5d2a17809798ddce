// The OpenTelemetry SDK of a process (docs/operations.md, "Tracing"; ADR 23). Off by default: only
// when an OTLP endpoint is configured (or a test passes an exporter) is a tracer provider
// registered; until then the API calls in @holdfast/logging, http-kit, messaging and db are no-ops.
// The SDK and its exporter (some 200 modules) are imported only then, not at every start (ADR 29).

import { context, propagation, trace } from '@opentelemetry/api';
import type { InMemorySpanExporter, SpanExporter } from '@opentelemetry/sdk-trace';

export type { InMemorySpanExporter, ReadableSpan } from '@opentelemetry/sdk-trace';

/** Tests: an exporter that keeps the spans in memory (pass it to startTracing). */
export async function inMemorySpanExporter(): Promise<InMemorySpanExporter> {
  const { InMemorySpanExporter } = await import('@opentelemetry/sdk-trace');
  return new InMemorySpanExporter();
}

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
export async function startTracing(settings: TracingSettings): Promise<Tracing | undefined> {
  if (!settings.endpoint && !settings.exporter) return undefined;
  const [
    { AsyncLocalStorageContextManager },
    { W3CTraceContextPropagator },
    { OTLPTraceExporter },
    { resourceFromAttributes },
    { BatchSpanProcessor, ParentBasedSampler, SimpleSpanProcessor, TraceIdRatioBasedSampler, TracerProvider },
  ] = await Promise.all([
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace'),
  ]);
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

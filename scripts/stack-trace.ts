// Maps a stack trace logged by a bundled service (`.../bundle/main.js:691:5107`) back to the source
// files and lines, through the bundle's source maps (ADR 31: production runs without
// --enable-source-maps, which costs 50-60 MiB per process).
//
//   node scripts/stack-trace.ts services/payments-service/bundle < trace.txt
//   pbpaste | node scripts/stack-trace.ts /path/to/an/image's/app/bundle
//
// Reads the trace from stdin (a JSON log line works: `\n` inside the stack is understood) and prints
// it with every frame in a bundle file replaced by its source position.
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { join, relative } from 'node:path';

const bundleDir = process.argv[2] ?? '';
if (!existsSync(bundleDir)) {
  process.stderr.write('usage: node scripts/stack-trace.ts <service>/bundle < trace.txt\n');
  process.exit(2);
}
const maps = new Map<string, SourceMap | undefined>();
function mapOf(file: string): SourceMap | undefined {
  if (!maps.has(file)) {
    const path = join(bundleDir, `${file}.map`);
    maps.set(file, existsSync(path) ? new SourceMap(JSON.parse(readFileSync(path, 'utf8'))) : undefined);
  }
  return maps.get(file);
}

const input = readFileSync(0, 'utf8').replaceAll('\\n', '\n');
const frame = /(?:file:\/\/)?[^\s()]*?\/bundle\/([\w.-]+\.js):(\d+):(\d+)/g;
process.stdout.write(
  input.replace(frame, (whole, file: string, line: string, column: string) => {
    const entry = mapOf(file)?.findEntry(Number(line) - 1, Number(column) - 1);
    if (!entry || !('originalSource' in entry)) return whole;
    const source = relative(process.cwd(), join(bundleDir, entry.originalSource));
    return `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  }),
);

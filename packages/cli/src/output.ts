/** Where the CLI writes: results to stdout, progress and errors to stderr. */
export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Whether stderr is a terminal (progress is animated only then). */
  interactive: boolean;
}

export const processIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  interactive: Boolean(process.stderr.isTTY),
};

/** Shows `label…` while `work` runs, then `done` or `failed` (on stderr, so --json output stays clean). */
export async function withProgress<T>(io: Io, label: string, work: () => Promise<T>): Promise<T> {
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  let timer: ReturnType<typeof setInterval> | undefined;
  if (io.interactive) {
    let i = 0;
    timer = setInterval(() => process.stderr.write(`\r${frames[i++ % frames.length]} ${label}…`), 80);
  } else io.err(`${label}…`);
  try {
    const result = await work();
    if (io.interactive) process.stderr.write(`\r✔ ${label}… done\n`);
    return result;
  } catch (error) {
    if (io.interactive) process.stderr.write(`\r✖ ${label}… failed\n`);
    throw error;
  } finally {
    clearInterval(timer);
  }
}

/** A plain text table: a header row and aligned columns. */
export function table(rows: Record<string, unknown>[], columns: string[]): string {
  const cell = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))].join('\n');
}

/** One record as `key  value` lines. */
export function record(value: Record<string, unknown>, keys: string[]): string {
  const width = Math.max(...keys.map((k) => k.length));
  return keys
    .filter((k) => value[k] !== undefined)
    .map((k) => `${k.padEnd(width)}  ${typeof value[k] === 'object' && value[k] !== null ? JSON.stringify(value[k]) : String(value[k])}`)
    .join('\n');
}

// Readable, interleaved logs for the processes the stack runs: one line per JSON log record.
const COLORS = ['\x1b[36m', '\x1b[35m', '\x1b[33m', '\x1b[32m', '\x1b[34m', '\x1b[31m'];
const LEVEL_COLORS: Record<string, string> = {
  fatal: '\x1b[41m',
  error: '\x1b[31m',
  warn: '\x1b[33m',
  info: '\x1b[32m',
  debug: '\x1b[90m',
  trace: '\x1b[90m',
};
const RESET = '\x1b[0m';
const useColor = process.stdout.isTTY;
const OMIT = new Set(['level', 'time', 'msg', 'service', 'pid', 'hostname']);

const paint = (color: string, text: string) => (useColor ? `${color}${text}${RESET}` : text);

export function say(message: string): void {
  process.stderr.write(`${paint('\x1b[1;36m', '[holdfast]')} ${message}\n`);
}

export function labeller(names: string[]): (name: string, line: string) => string {
  const width = Math.max(...names.map((n) => n.length));
  return (name, line) => {
    const color = COLORS[names.indexOf(name) % COLORS.length] ?? '';
    const label = paint(color, name.padEnd(width));
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return `${label} ${line}`;
    }
    const time = typeof record.time === 'string' ? record.time.slice(11, 23) : '';
    const level = String(record.level ?? 'info');
    const extras = Object.entries(record)
      .filter(([k]) => !OMIT.has(k))
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(' ');
    return `${label} ${time} ${paint(LEVEL_COLORS[level] ?? '', level.toUpperCase().padEnd(5))} ${String(record.msg ?? '')} ${paint('\x1b[90m', extras)}`;
  };
}

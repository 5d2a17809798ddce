/**
 * The metric names a PromQL expression reads, for the check that every rule and panel names a
 * metric the processes export. Enough of PromQL for our own expressions: quoted strings, label
 * matchers `{…}`, ranges `[…]`, grouping clauses and numbers are removed; what remains as a word
 * not followed by `(` and not an operator keyword is a metric (or a recorded series, with `:`).
 */
const KEYWORDS = new Set(['and', 'or', 'unless', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'offset']);

export function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\b\d+(?:\.\d+)?(?:e\d+)?\b/g, ' ');
  const names = new Set<string>();
  for (const match of stripped.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\()?/g)) {
    const [, word, call] = match;
    if (!word || call || KEYWORDS.has(word)) continue;
    names.add(word);
  }
  return [...names].sort();
}

/** A histogram's or summary's series name back to the metric's own (`x_bucket` → `x`), when `x` is exported. */
export function exportedName(series: string, exported: ReadonlySet<string>): string | undefined {
  if (exported.has(series)) return series;
  const base = series.replace(/_(?:bucket|sum|count)$/, '');
  return exported.has(base) ? base : undefined;
}

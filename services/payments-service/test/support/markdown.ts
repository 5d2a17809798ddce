/** Markdown tables compared cell by cell: the formatter may pad them. */
export const normalizedTable = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((line) =>
      line
        .split('|')
        .map((cell) => cell.trim().replace(/^-+$/, '---').replace(/\s+/g, ' '))
        .join('|'),
    )
    .join('\n');

import { TRANSACTION_ACTIONS, TRANSACTION_MOVES } from '../../src/modules/transactions/state-machine.js';

/** The moves table of docs/transactions.md, rendered from TRANSACTION_MOVES. */
export function movesTable(): string {
  const lines = ['| Action | From | To | Event | Why |', '| --- | --- | --- | --- | --- |'];
  for (const action of TRANSACTION_ACTIONS) {
    const m = TRANSACTION_MOVES[action];
    lines.push(
      `| \`${action}\` | ${m.from.map((s) => `\`${s}\``).join(', ')} | \`${m.to}\` | ${m.event ? `\`${m.event}\`` : '—'} | ${m.why} |`,
    );
  }
  return lines.join('\n');
}

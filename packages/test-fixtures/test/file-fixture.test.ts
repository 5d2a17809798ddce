import { describe, expect, it } from 'vitest';
import { fileFixture } from '../src/index.js';

const log: string[] = [];

describe('fileFixture', () => {
  const counter = fileFixture(async () => {
    log.push('start');
    return {
      count: 1,
      stop: async () => {
        log.push('stop');
      },
    };
  });
  const doubled = fileFixture(async () => ({ count: counter.count * 2 }));
  // A server or a connection: stopped by its close().
  fileFixture(async () => ({
    close: async () => {
      log.push('close');
    },
  }));
  let early: unknown;
  try {
    early = counter.count;
  } catch (error) {
    early = error;
  }

  it('refuses to be read before its beforeAll ran', () => {
    expect(early).toBeInstanceOf(Error);
    expect(String(early)).toContain('used before its beforeAll ran');
  });

  it('stands for the started value, and a later fixture builds on an earlier one', () => {
    expect(counter.count).toBe(1);
    expect(doubled.count).toBe(2);
    expect({ ...doubled }).toEqual({ count: 2 });
    expect('count' in counter).toBe(true);
  });

  it('writes through to the started value', () => {
    counter.count = 5;
    expect(counter.count).toBe(5);
  });

  it('is not a thenable, so awaiting it gives it back', async () => {
    expect(await doubled).toBe(doubled);
  });
});

describe('after the fixture’s block', () => {
  it('was started once and stopped once, the later fixture first', () => {
    expect(log).toEqual(['start', 'close', 'stop']);
  });
});

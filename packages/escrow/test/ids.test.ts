import { describe, expect, it } from 'vitest';
import { onchainIdToUuid, uuidToOnchainId } from '../src/index.js';

const uuid = '123e4567-e89b-42d3-a456-426614174000';
const id = '0x00000000000000000000000000000000123e4567e89b42d3a456426614174000';

describe('uuidToOnchainId / onchainIdToUuid', () => {
  it('left-pads the UUID bytes to a bytes32 and maps back', () => {
    expect(uuidToOnchainId(uuid)).toBe(id);
    expect(onchainIdToUuid(id)).toBe(uuid);
    const random = crypto.randomUUID();
    expect(onchainIdToUuid(uuidToOnchainId(random))).toBe(random);
  });

  it('normalises case', () => {
    expect(uuidToOnchainId(uuid.toUpperCase())).toBe(id);
    expect(onchainIdToUuid(id.toUpperCase().replace('0X', '0x'))).toBe(uuid);
  });

  it.each([
    '',
    '123e4567e89b42d3a456426614174000',
    '{123e4567-e89b-42d3-a456-426614174000}',
    '123e4567-e89b-42d3-a456-42661417400',
    '123e4567-e89b-42d3-a456-4266141740000',
    '123e4567-e89b-42d3-a456-42661417400g',
    ' 123e4567-e89b-42d3-a456-426614174000',
    '00000000-0000-0000-0000-000000000000',
  ])('refuses %j as a UUID', (input) => {
    expect(() => uuidToOnchainId(input)).toThrow(TypeError);
  });

  it.each([
    '',
    id.slice(2),
    id.slice(0, -1),
    `${id}0`,
    `0x01${id.slice(4)}`,
    `0x${'f'.repeat(64)}`,
    `0x${'0'.repeat(63)}g`,
    `0x${'0'.repeat(64)}`,
  ])('refuses %j as an on-chain id', (input) => {
    expect(() => onchainIdToUuid(input)).toThrow(TypeError);
  });
});

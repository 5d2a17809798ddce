/**
 * Host names of each kind an outbound policy tells apart, for a table resolver (`tableResolver` of
 * @holdfast/outbound): a public address, a private one, the cloud metadata address, and a name with
 * a public and a loopback address.
 */
export const POLICY_TEST_HOSTS: ReadonlyArray<readonly [string, string[]]> = [
  ['public.example', ['93.184.216.34']],
  ['internal.example', ['10.1.2.3']],
  ['metadata.example', ['169.254.169.254']],
  ['mixed.example', ['93.184.216.34', '127.0.0.1']],
];

/**
 * Redis Cluster's hash slots, as the server computes them: docket routes each call by its first
 * key's slot. Its own module, as both the node-redis path (connection.ts) and the ioredis adapter
 * (ioredis.ts) route by it.
 */

/** CRC16 (XMODEM) hash slot of a key, honouring a `{tag}`, as Redis Cluster computes it. */
export function slotOf(key: string): number {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) key = key.slice(open + 1, close);
  }
  let crc = 0;
  for (const byte of Buffer.from(key)) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}

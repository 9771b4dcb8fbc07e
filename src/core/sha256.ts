/**
 * SHA-256 (FIPS 180-4) of a few bytes, in plain JavaScript. The index names its file by a hash of
 * the state dir's path (store/cache/location.ts), and loading node:crypto for that one digest was
 * about 12 ms of a Tab's completion (its OpenSSL bindings and streams). Anything larger, or
 * anything secret, takes node:crypto.
 */

/** The first 32 bits of the fractional parts of the roots of the first primes (the standard's constants, computed). */
function fractionBits(count: number, root: (p: number) => number): Uint32Array {
  const primes: number[] = [];
  for (let n = 2; primes.length < count; n++) if (primes.every((p) => n % p !== 0)) primes.push(n);
  return Uint32Array.from(primes, (p) => {
    const r = root(p);
    return Math.floor((r - Math.floor(r)) * 2 ** 32);
  });
}

const K = fractionBits(64, Math.cbrt);
const H0 = fractionBits(8, Math.sqrt);

const ror = (x: number, n: number) => (x >>> n) | (x << (32 - n));

/** The digest of `bytes`, as 64 lowercase hex digits. */
export function sha256Hex(bytes: Uint8Array): string {
  // The message, a 1 bit, zeros, and its length in bits (64-bit big-endian), in 64-byte blocks.
  const padded = new Uint8Array(((bytes.length + 8) >> 6) * 64 + 64);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bytes.length / 2 ** 29));
  view.setUint32(padded.length - 4, (bytes.length * 8) >>> 0);
  const state = Uint32Array.from(H0);
  const w = new Uint32Array(64);
  for (let block = 0; block < padded.length; block += 64) {
    for (let t = 0; t < 16; t++) w[t] = view.getUint32(block + t * 4);
    for (let t = 16; t < 64; t++) {
      const s0 = ror(w[t - 15]!, 7) ^ ror(w[t - 15]!, 18) ^ (w[t - 15]! >>> 3);
      const s1 = ror(w[t - 2]!, 17) ^ ror(w[t - 2]!, 19) ^ (w[t - 2]! >>> 10);
      w[t] = w[t - 16]! + s0 + w[t - 7]! + s1;
    }
    let [a, b, c, d, e, f, g, h] = [state[0]!, state[1]!, state[2]!, state[3]!, state[4]!, state[5]!, state[6]!, state[7]!];
    for (let t = 0; t < 64; t++) {
      const t1 = (h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K[t]! + w[t]!) | 0;
      const t2 = ((ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      [h, g, f, e, d, c, b, a] = [g, f, e, (d + t1) | 0, c, b, a, (t1 + t2) | 0];
    }
    // A Uint32Array keeps each sum modulo 2^32.
    for (const [i, v] of [a, b, c, d, e, f, g, h].entries()) state[i] = state[i]! + v;
  }
  let hex = "";
  for (const word of state) hex += word.toString(16).padStart(8, "0");
  return hex;
}

package dev.tokenmeter.simulator;

/** Seeded mixing and ids. Stateless, thread-safe. */
final class Ids {

  private Ids() {}

  /** Stafford's variant 13 of the MurmurHash3 finalizer: a bijective 64-bit mix. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  /** A seed for the random stream of request {@code key} under server seed {@code seed}. */
  static long streamSeed(long seed, long key) {
    return mix(seed ^ mix(key + 0x9e3779b97f4a7c15L));
  }

  /** 32 lowercase hex digits derived from (seed, key), the length of vLLM's uuid4().hex ids. */
  static String hex(long seed, long key) {
    long hi = mix(streamSeed(seed, key) + 1);
    long lo = mix(hi + 0x632be59bd9b4e019L);
    return String.format("%016x%016x", hi, lo);
  }
}

package dev.tokenmeter.core.request;

import java.util.Arrays;
import java.util.Objects;

/**
 * The text chunks of one request as they arrived: each chunk's arrival time (nanoseconds), its
 * length in UTF-16 chars and its {@link TextKind}, appended in order and read back in order.
 *
 * <pre>{@code
 * ChunkLog log = new ChunkLog();
 * log.append(t0, 5, TextKind.CONTENT);
 * for (ChunkLog.Cursor c = log.cursor(); c.next(); ) { use(c.nanos(), c.chars(), c.kind()); }
 * }</pre>
 *
 * <p><b>Thread-safety.</b> One writer; once the writer stopped (the request ended and was handed
 * over), any number of threads may read, each with its own {@link Cursor}.
 */
/* design notes
 *
 * Why not three arrays (long nanos, int chars, byte kind): 13 bytes a chunk, plus up to as much again
 * of spare capacity from the doubling growth, and a request in flight holds every chunk until it
 * ends: 27 MB for 1,000 streams near the end of 2,048-token answers (docs/PERFORMANCE.md, "Memory"). Each
 * chunk is stored as two unsigned LEB128 varints instead: the zigzag-encoded gap to the previous
 * chunk's time (to 0 for the first; a paced 20 ms gap takes 4 bytes, a zero-delay server's ~10-100 µs
 * gap 2-3), then chars << 2 | kind (1 byte up to 31 chars). About 5 bytes a chunk, read back exactly.
 *
 * Why blocks, not one array that doubles: a request lives seconds, so its log outlives several
 * young collections and is promoted to the old generation, and with doubling every outgrown array is
 * promoted too before it dies (256 + 512 + 1,024 bytes of garbage besides the 2,048-byte array
 * holding 1.3 KB for a 256-token answer). The heap's cap has to leave room for that garbage
 * (scripts/heap-for-run.sh). Blocks of 256 bytes are never copied, and one entry never spans two.
 * Small blocks because most answers are short: with a 1 KiB second block a 64-token answer's log
 * took 1,280 bytes, and at 1,000 streams of 64 tokens more was promoted than with doubling.
 */
public final class ChunkLog {
  private static final int BLOCK_BYTES = 256;
  private static final int MAX_ENTRY_BYTES = 2 * 10; // two varints of up to 10 bytes
  private static final int KIND_BITS = 2;
  private static final TextKind[] KINDS = TextKind.values();

  static {
    if (KINDS.length > 1 << KIND_BITS) {
      throw new AssertionError("TextKind needs more than " + KIND_BITS + " bits");
    }
  }

  private byte[][] blocks = {new byte[BLOCK_BYTES]};
  private int[] used = new int[1]; // bytes used in each block but the last
  private int last; // index of the block being written
  private byte[] bytes = blocks[0]; // blocks[last]
  private int size; // bytes used in it
  private int count;
  private long lastNanos;

  /** Appends a chunk that arrived at {@code nanos} carrying {@code chars} UTF-16 chars of {@code kind}. */
  public void append(long nanos, int chars, TextKind kind) {
    if (chars < 0) {
      throw new IllegalArgumentException("chars " + chars + " < 0");
    }
    if (size + MAX_ENTRY_BYTES > bytes.length) {
      nextBlock();
    }
    long gap = nanos - lastNanos;
    put((gap << 1) ^ (gap >> 63)); // zigzag: a clock that went back still round-trips
    put(((long) chars << KIND_BITS) | kind.ordinal());
    lastNanos = nanos;
    count++;
  }

  private void nextBlock() {
    if (last + 1 == blocks.length) {
      blocks = Arrays.copyOf(blocks, blocks.length * 2);
      used = Arrays.copyOf(used, blocks.length);
    }
    used[last] = size;
    bytes = blocks[++last] = new byte[BLOCK_BYTES];
    size = 0;
  }

  private void put(long v) {
    while ((v & ~0x7FL) != 0) {
      bytes[size++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    bytes[size++] = (byte) v;
  }

  /** Chunks appended so far. */
  public int count() {
    return count;
  }

  /** Bytes the log holds its chunks in (not counting the spare capacity). */
  public int sizeBytes() {
    int n = size;
    for (int b = 0; b < last; b++) {
      n += used[b];
    }
    return n;
  }

  /** A cursor before the first chunk; {@link Cursor#next()} moves to each in turn. */
  public Cursor cursor() {
    return new Cursor();
  }

  /** Arrival of chunk {@code i}; reads the log from the start (use a {@link Cursor} to walk it). */
  public long nanos(int i) {
    return at(i).nanos;
  }

  /** UTF-16 chars of chunk {@code i}; reads the log from the start. */
  public int chars(int i) {
    return at(i).chars;
  }

  /** Kind of chunk {@code i}; reads the log from the start. */
  public TextKind kind(int i) {
    return at(i).kind;
  }

  private Cursor at(int i) {
    Objects.checkIndex(i, count);
    Cursor c = cursor();
    for (int k = 0; k <= i; k++) {
      c.next();
    }
    return c;
  }

  /** Reads the chunks in arrival order; confined to the thread that uses it. */
  public final class Cursor {
    private int block;
    private byte[] in = blocks[0];
    private int pos;
    private int index = -1;
    private long nanos;
    private int chars;
    private TextKind kind;

    private Cursor() {}

    /** Moves to the next chunk; false (and stays put) when there is none. */
    public boolean next() {
      if (index + 1 >= count) {
        return false;
      }
      if (pos == (block == last ? size : used[block])) {
        in = blocks[++block]; // the entry starts the next block
        pos = 0;
      }
      long zz = get();
      nanos += (zz >>> 1) ^ -(zz & 1);
      long ck = get();
      chars = (int) (ck >>> KIND_BITS);
      kind = KINDS[(int) (ck & ((1 << KIND_BITS) - 1))];
      index++;
      return true;
    }

    private long get() {
      long v = 0;
      int shift = 0;
      byte b;
      do {
        b = in[pos++];
        v |= (long) (b & 0x7F) << shift;
        shift += 7;
      } while (b < 0);
      return v;
    }

    /** Index of the current chunk, -1 before the first. */
    public int index() {
      return index;
    }

    /** Arrival of the current chunk. */
    public long nanos() {
      return nanos;
    }

    /** UTF-16 chars of the current chunk. */
    public int chars() {
      return chars;
    }

    /** Kind of the current chunk. */
    public TextKind kind() {
      return kind;
    }
  }
}

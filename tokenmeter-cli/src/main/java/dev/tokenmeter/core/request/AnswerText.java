package dev.tokenmeter.core.request;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * The answer text of one request, appended chunk by chunk as it arrives and read once the request
 * ended (the tokenizer and word counts, {@code content_chars}): a {@link CharSequence} of exactly the
 * chars appended.
 *
 * <pre>{@code
 * AnswerText text = new AnswerText();
 * text.append(" Paris");
 * String all = text.toString();
 * }</pre>
 *
 * <p><b>Thread-safety.</b> One writer; once the writer stopped (the request ended and was handed
 * over), any number of threads may read.
 */
/* design notes
 *
 * Why not a StringBuilder: a request lives seconds, so its text outlives several young collections
 * and is promoted to the old generation, and so is every array a doubling builder outgrows: 2,272
 * bytes of garbage and a 2,302-byte array for a 1,220-char answer, against 1,280 bytes here. The
 * heap's cap has to leave room for that garbage (scripts/heap-for-run.sh, docs/PERFORMANCE.md, "Memory").
 * Text whose chars are all below U+0100 (English prose, code, JSON) is kept a byte a char in
 * 256-byte blocks that are never copied, each full but the last (small, because most answers are
 * short: a 64-token answer takes two). The first char above U+00FF moves the text into a
 * StringBuilder (UTF-16) for the rest of the request. ChunkLog keeps its bytes in blocks the same
 * way; its blocks end where an entry would not fit, these are always full (charAt's arithmetic).
 */
public final class AnswerText implements CharSequence {
  private static final int BLOCK_CHARS = 256;

  private byte[][] blocks = {new byte[BLOCK_CHARS]}; // null once wide
  private int last; // index of the block being written
  private byte[] block = blocks[0]; // blocks[last]
  private int size; // chars in it
  private int length;
  private StringBuilder wide; // non-null once a char above U+00FF arrived

  /** Appends all of {@code text}. */
  public void append(CharSequence text) {
    if (wide != null) {
      wide.append(text);
      length = wide.length();
      return;
    }
    int n = text.length();
    for (int i = 0; i < n; i++) {
      char c = text.charAt(i);
      if (c > 0xFF) {
        widen();
        wide.append(text, i, n);
        length = wide.length();
        return;
      }
      if (size == block.length) {
        nextBlock();
      }
      block[size++] = (byte) c;
      length++;
    }
  }

  private void nextBlock() {
    if (last + 1 == blocks.length) {
      blocks = Arrays.copyOf(blocks, blocks.length * 2);
    }
    block = blocks[++last] = new byte[BLOCK_CHARS];
    size = 0;
  }

  private void widen() {
    StringBuilder s = new StringBuilder(Math.max(16, length * 2));
    s.append(latin1());
    wide = s;
    blocks = null;
    block = null;
  }

  /** The text so far as one Latin-1 string; only while not wide. */
  private String latin1() {
    byte[] all = new byte[length];
    int at = 0;
    for (int b = 0; b <= last; b++) {
      int n = b == last ? size : blocks[b].length;
      System.arraycopy(blocks[b], 0, all, at, n);
      at += n;
    }
    return new String(all, StandardCharsets.ISO_8859_1);
  }

  @Override
  public int length() {
    return length;
  }

  @Override
  public char charAt(int index) {
    Objects.checkIndex(index, length);
    if (wide != null) {
      return wide.charAt(index);
    }
    return (char) (blocks[index / BLOCK_CHARS][index % BLOCK_CHARS] & 0xFF);
  }

  @Override
  public CharSequence subSequence(int start, int end) {
    Objects.checkFromToIndex(start, end, length);
    return toString().substring(start, end);
  }

  @Override
  public String toString() {
    return wide != null ? wide.toString() : latin1();
  }
}

package dev.tokenmeter.client;

import java.nio.charset.StandardCharsets;

/**
 * A cursor over one JSON text in a byte array, for {@link ChunkScanner}: reads tokens in place and
 * throws {@link Decline} (preallocated, no stack trace) at the first byte outside a strict subset
 * of JSON, so the caller can hand the payload to the full parser instead.
 *
 * <p>The subset (all of it accepted by Jackson's defaults, and decoded the same way): RFC 8259
 * whitespace, literals and numbers of at most {@value #MAX_NUMBER_CHARS} characters, strings
 * with the standard escapes and strictly valid UTF-8 (no overlong forms, surrogates or code points
 * above U+10FFFF), no control characters, names of at most {@value #MAX_NAME_BYTES} bytes, skipped
 * values nested at most {@value #MAX_DEPTH} deep. Not thread-safe.
 */
final class JsonCursor {
  static final int MAX_DEPTH = 8; // of skipped values; OpenAI chunks nest 3-4 deep
  static final int MAX_NUMBER_CHARS = 32;
  static final int MAX_NAME_BYTES = 1024; // Jackson's own name limit is 50,000
  static final int MAX_STRING_BYTES = 1 << 22; // Jackson's own string limit is 20 M chars

  /** The payload is outside the subset: nothing was decided. */
  static final class Decline extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private Decline() {
      super(null, null, false, false);
    }
  }

  static final Decline DECLINE = new Decline();

  private byte[] b;
  private int pos;
  private int end;
  // The last string read: its content's bounds in b, whether it is ASCII without escapes, and
  // whether it has escapes.
  private int strStart;
  private int strEnd;
  private boolean strPlain;
  private boolean strEscaped;

  void reset(byte[] bytes, int offset, int length) {
    b = bytes;
    pos = offset;
    end = offset + length;
  }

  /** Forgets the array (a large body must not stay reachable). */
  void clear() {
    b = null;
  }

  private byte at(int i) {
    if (i >= end) {
      throw DECLINE;
    }
    return b[i];
  }

  void skipWhitespace() {
    int p = pos;
    while (p < end) {
      byte c = b[p];
      if (c > ' ' || (c != ' ' && c != '\n' && c != '\r' && c != '\t')) {
        break;
      }
      p++;
    }
    pos = p;
  }

  boolean atEnd() {
    skipWhitespace();
    return pos == end;
  }

  /** Whether the next token starts with {@code c} (not consumed). */
  boolean peekIs(char c) {
    skipWhitespace();
    return pos < end && b[pos] == c;
  }

  void expect(char c) {
    skipWhitespace();
    if (at(pos) != c) {
      throw DECLINE;
    }
    pos++;
  }

  /** Consumes {@code open}; false when {@code close} follows at once (consumed too: empty). */
  boolean open(char open, char close) {
    expect(open);
    if (peekIs(close)) {
      pos++;
      return false;
    }
    return true;
  }

  /** After a member or element: true on a comma, false on {@code close} (consumed). */
  boolean comma(char close) {
    skipWhitespace();
    byte c = at(pos++);
    if (c == ',') {
      return true;
    }
    if (c != close) {
      throw DECLINE;
    }
    return false;
  }

  /** Consumes {@code null} and returns true, or returns false before any other value. */
  boolean nullLiteral() {
    skipWhitespace();
    if (pos < end && b[pos] == 'n') {
      literal("null");
      return true;
    }
    return false;
  }

  /** A member name (ASCII, no escapes) and its colon; compare it with {@link #is}. */
  void key() {
    string();
    if (!strPlain || strEnd - strStart > MAX_NAME_BYTES) {
      throw DECLINE;
    }
    expect(':');
  }

  /** Whether the last string read equals {@code ascii} once decoded. */
  boolean is(String ascii) {
    int n = strEnd - strStart;
    if (!strPlain) {
      return n >= ascii.length() && decoded().equals(ascii);
    }
    if (n != ascii.length()) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      if (b[strStart + i] != ascii.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  /** Whether the last string read is empty. */
  boolean emptyString() {
    return strEnd == strStart;
  }

  /** Reads a string value, checking it; its text is {@link #decoded()}. */
  void string() {
    expect('"');
    byte[] b = this.b; // locals: this loop runs over every byte of every chunk
    int end = this.end;
    int p = pos;
    strStart = p;
    boolean plain = true;
    boolean escaped = false;
    while (true) {
      if (p >= end) {
        throw DECLINE;
      }
      byte c = b[p];
      if (c > 0x1F && c != '"' && c != '\\') {
        p++; // printable ASCII (a negative byte, non-ASCII, is not > 0x1F)
        continue;
      }
      if (c == '"') {
        break;
      }
      pos = p;
      if (c == '\\') {
        escaped = true;
        escape();
      } else if (c < 0) {
        utf8(c);
      } else {
        throw DECLINE; // a control character
      }
      plain = false;
      p = pos;
    }
    strEnd = p;
    pos = p + 1;
    if (p - strStart > MAX_STRING_BYTES) {
      throw DECLINE;
    }
    strPlain = plain;
    strEscaped = escaped;
  }

  private void escape() {
    byte e = at(pos + 1);
    switch (e) {
      case '"', '\\', '/', 'b', 'f', 'n', 'r', 't' -> pos += 2;
      case 'u' -> {
        int unit = 0;
        for (int i = 2; i < 6; i++) {
          unit = unit << 4 | hex(at(pos + i));
        }
        if (unit >= 0xD800 && unit <= 0xDFFF) {
          // A surrogate escape, paired or not, goes to the full parser: Jackson rejects a lone
          // one in a field name but not in a value, a rule not worth copying for so rare a case.
          throw DECLINE;
        }
        pos += 6;
      }
      default -> throw DECLINE;
    }
  }

  private static int hex(byte c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    throw DECLINE;
  }

  /** One strictly valid UTF-8 sequence starting with {@code lead} (Unicode Table 3-7). */
  private void utf8(byte lead) {
    int c = lead & 0xFF;
    int n;
    int lo = 0x80;
    int hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      lo = c == 0xE0 ? 0xA0 : 0x80;
      hi = c == 0xED ? 0x9F : 0xBF;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      lo = c == 0xF0 ? 0x90 : 0x80;
      hi = c == 0xF4 ? 0x8F : 0xBF;
    } else {
      throw DECLINE;
    }
    int second = at(pos + 1) & 0xFF;
    if (second < lo || second > hi) {
      throw DECLINE;
    }
    for (int i = 2; i <= n; i++) {
      int next = at(pos + i) & 0xFF;
      if (next < 0x80 || next > 0xBF) {
        throw DECLINE;
      }
    }
    pos += n + 1;
  }

  /** The last string read, decoded. */
  String decoded() {
    int n = strEnd - strStart;
    if (strPlain) {
      return new String(b, strStart, n, StandardCharsets.ISO_8859_1); // ASCII: the compact form
    }
    if (!strEscaped) {
      return new String(b, strStart, n, StandardCharsets.UTF_8);
    }
    StringBuilder s = new StringBuilder(n);
    int run = strStart;
    int i = strStart;
    while (i < strEnd) {
      if (b[i] != '\\') {
        i++; // no UTF-8 sequence contains a backslash byte: runs split only at escapes
        continue;
      }
      s.append(new String(b, run, i - run, StandardCharsets.UTF_8));
      byte e = b[i + 1];
      switch (e) {
        case 'b' -> s.append('\b');
        case 'f' -> s.append('\f');
        case 'n' -> s.append('\n');
        case 'r' -> s.append('\r');
        case 't' -> s.append('\t');
        case 'u' ->
            s.append(
                (char) (hex(b[i + 2]) << 12 | hex(b[i + 3]) << 8 | hex(b[i + 4]) << 4 | hex(b[i + 5])));
        default -> s.append((char) e); // " \ /
      }
      i += e == 'u' ? 6 : 2;
      run = i;
    }
    s.append(new String(b, run, strEnd - run, StandardCharsets.UTF_8));
    return s.toString();
  }

  /** An int of at most 9 digits (a longer one declines), with an optional minus sign. */
  int smallInt() {
    skipWhitespace();
    boolean negative = at(pos) == '-';
    int digits = negative ? pos + 1 : pos;
    int value = 0;
    int i = digits;
    while (i < end && b[i] >= '0' && b[i] <= '9') {
      value = value * 10 + (b[i++] - '0');
    }
    int n = i - digits;
    if (n == 0 || n > 9 || (n > 1 && b[digits] == '0')) {
      throw DECLINE;
    }
    number(); // the grammar: "1.0" or "1e3" is a number but not an int
    if (pos != i) {
      throw DECLINE;
    }
    return negative ? -value : value;
  }

  /** Skips any value, checking it. */
  void skip(int depth) {
    skipWhitespace();
    switch (at(pos)) {
      case '"' -> string();
      case '{' -> container('}', depth, true);
      case '[' -> container(']', depth, false);
      case 't' -> literal("true");
      case 'f' -> literal("false");
      case 'n' -> literal("null");
      default -> number();
    }
  }

  private void container(char close, int depth, boolean object) {
    if (depth >= MAX_DEPTH) {
      throw DECLINE;
    }
    if (!open(object ? '{' : '[', close)) {
      return;
    }
    do {
      if (object) {
        string();
        if (strEnd - strStart > MAX_NAME_BYTES) {
          throw DECLINE;
        }
        expect(':');
      }
      skip(depth + 1);
    } while (comma(close));
  }

  private void literal(String word) {
    for (int i = 0; i < word.length(); i++) {
      if (at(pos + i) != word.charAt(i)) {
        throw DECLINE;
      }
    }
    pos += word.length();
  }

  /** {@code -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?}, RFC 8259 section 6. */
  private void number() {
    int start = pos;
    if (at(pos) == '-') {
      pos++;
    }
    if (at(pos) == '0') {
      pos++;
    } else {
      digits();
    }
    if (pos < end && b[pos] == '.') {
      pos++;
      digits();
    }
    if (pos < end && (b[pos] == 'e' || b[pos] == 'E')) {
      pos++;
      if (at(pos) == '+' || b[pos] == '-') {
        pos++;
      }
      digits();
    }
    if (pos - start > MAX_NUMBER_CHARS) {
      throw DECLINE;
    }
  }

  /** One or more digits. */
  private void digits() {
    int start = pos;
    int p = start;
    while (p < end && b[p] >= '0' && b[p] <= '9') {
      p++;
    }
    if (p == start) {
      throw DECLINE;
    }
    pos = p;
  }
}

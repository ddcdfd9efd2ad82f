package dev.tokenmeter.report;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * HdrHistograms as text: base64 (RFC 4648, with padding) of HdrHistogram's compressed encoding
 * ({@link Histogram#encodeIntoCompressedByteBuffer}), the format HdrHistogram's own log tools
 * read, so saved runs can be merged and compared without re-running them.
 */
public final class HistogramCodec {
  /** Name of the encoding in summary.json. */
  public static final String ENCODING = "hdrhistogram-compressed-base64";

  private HistogramCodec() {}

  /** The base64 text of {@code h}. */
  public static String encode(Histogram h) {
    ByteBuffer buffer = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
    int length = h.encodeIntoCompressedByteBuffer(buffer);
    return Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(buffer.array(), length));
  }

  /** The histogram {@code text} encodes. */
  public static Histogram decode(String text) {
    byte[] bytes = Base64.getDecoder().decode(text);
    try {
      return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(bytes), 0);
    } catch (DataFormatException e) {
      throw new IllegalArgumentException("not an HdrHistogram encoding: " + e.getMessage(), e);
    }
  }
}

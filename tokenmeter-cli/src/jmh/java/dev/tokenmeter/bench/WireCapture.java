package dev.tokenmeter.bench;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * The TCP segments of a libpcap capture file (tcpdump {@code -w}), each with the kernel's timestamp:
 * a clock neither the client nor the server reads, for {@code BenchTools wire}. Reads the classic
 * pcap format in either byte order, microsecond or nanosecond timestamps ({@code
 * --time-stamp-precision=nano}), over Ethernet (what {@code -i lo} records on Linux) or Linux
 * cooked headers (SLL and SLL2, what {@code -i any} records); IPv4 only. Segments without payload
 * (pure ACKs, SYN, FIN) are skipped.
 */
final class WireCapture {
  /** One TCP segment with payload: the kernel's CLOCK_REALTIME timestamp, its ports, its bytes. */
  record Segment(long realtimeNanos, int sourcePort, int destinationPort, byte[] payload) {}

  private static final int LINKTYPE_ETHERNET = 1;
  private static final int LINKTYPE_LINUX_SLL = 113;
  private static final int LINKTYPE_LINUX_SLL2 = 276;

  private WireCapture() {}

  /** Calls {@code each} for every TCP segment with payload, in file order; reads the file once, streaming. */
  static void forEach(Path file, Consumer<Segment> each) throws IOException {
    try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 20))) {
      byte[] head = new byte[24];
      try {
        in.readFully(head);
      } catch (EOFException e) {
        throw new IOException(file + ": not a pcap file (shorter than its 24-byte header)");
      }
      ByteBuffer h = ByteBuffer.wrap(head).order(ByteOrder.LITTLE_ENDIAN);
      int magic = h.getInt(0);
      if (magic != 0xa1b2c3d4 && magic != 0xa1b23c4d) {
        h.order(ByteOrder.BIG_ENDIAN);
        magic = h.getInt(0);
        if (magic != 0xa1b2c3d4 && magic != 0xa1b23c4d) {
          throw new IOException(file + ": not a classic pcap file; write it with tcpdump -w, not as pcapng");
        }
      }
      boolean nanos = magic == 0xa1b23c4d;
      int linkType = h.getInt(20) & 0x0fffffff;
      if (linkType != LINKTYPE_ETHERNET && linkType != LINKTYPE_LINUX_SLL && linkType != LINKTYPE_LINUX_SLL2) {
        throw new IOException(file + ": link type " + linkType + " is not read here (Ethernet, Linux SLL or SLL2)");
      }
      byte[] record = new byte[16];
      ByteBuffer r = ByteBuffer.wrap(record).order(h.order());
      byte[] frame = new byte[65536 + 64];
      while (true) {
        try {
          in.readFully(record);
        } catch (EOFException e) {
          return;
        }
        long seconds = r.getInt(0) & 0xffffffffL;
        long fraction = r.getInt(4) & 0xffffffffL;
        int captured = r.getInt(8);
        if (captured < 0 || captured > frame.length) {
          throw new IOException(file + ": a record of " + captured + " bytes; the file is damaged");
        }
        try {
          in.readFully(frame, 0, captured);
        } catch (EOFException e) {
          return; // a capture cut short mid-record (tcpdump killed): keep what is whole
        }
        long ts = seconds * 1_000_000_000L + (nanos ? fraction : fraction * 1_000L);
        Segment s = segment(ByteBuffer.wrap(frame, 0, captured), captured, linkType, ts);
        if (s != null) {
          each.accept(s);
        }
      }
    }
  }

  /** The TCP segment in one captured frame, or null: not IPv4 TCP, or no payload. */
  private static Segment segment(ByteBuffer b, int at, int linkType, long ts) {
    int frame = 0;
    int ip;
    int etherType;
    switch (linkType) {
      case LINKTYPE_ETHERNET -> {
        etherType = at >= 14 ? u16(b, frame + 12) : -1;
        ip = frame + 14;
      }
      case LINKTYPE_LINUX_SLL -> {
        etherType = at >= 16 ? u16(b, frame + 14) : -1;
        ip = frame + 16;
      }
      default -> {
        etherType = at >= 20 ? u16(b, frame) : -1;
        ip = frame + 20;
      }
    }
    if (etherType != 0x0800 || ip + 20 > at || (b.get(ip) & 0xf0) != 0x40 || b.get(ip + 9) != 6) {
      return null; // not IPv4, or not TCP
    }
    int ipHeader = (b.get(ip) & 0x0f) * 4;
    int ipEnd = Math.min(at, ip + u16(b, ip + 2));
    int tcp = ip + ipHeader;
    if (tcp + 20 > ipEnd) {
      return null;
    }
    int tcpHeader = ((b.get(tcp + 12) & 0xf0) >>> 4) * 4;
    int payload = tcp + tcpHeader;
    if (payload >= ipEnd) {
      return null;
    }
    byte[] bytes = new byte[ipEnd - payload];
    b.get(payload, bytes);
    return new Segment(ts, u16(b, tcp), u16(b, tcp + 2), bytes);
  }

  private static int u16(ByteBuffer b, int at) {
    return ((b.get(at) & 0xff) << 8) | (b.get(at + 1) & 0xff);
  }
}

package dev.tokenmeter.proxy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A hand-scripted HTTP/1.1 upstream on a blocking socket, for what the simulator cannot show: the
 * exact request bytes the proxy sent, a refusal of {@code stream_options}, a response that never
 * ends, the moment the proxy closed the connection. One thread per connection; keep-alive.
 */
public final class ScriptedUpstream implements AutoCloseable {
  /** A request as received. Header names lower-case. */
  public record Request(String method, String path, Map<String, String> headers, String body, String rawHead) {}

  /** Answers one request by writing raw bytes; may block reading {@code in} to wait for a close. */
  @FunctionalInterface
  public interface Script {
    void respond(Request request, OutputStream out, InputStream in) throws IOException;
  }

  public final List<Request> requests = new CopyOnWriteArrayList<>();
  /** {@code System.nanoTime()} when a connection's read returned end of stream, or -1. */
  public volatile long closeSeenNanos = -1;
  public volatile int connections;
  private final ServerSocket server;
  private final Script script;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();

  public ScriptedUpstream(Script script) {
    this.script = script;
    try {
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Thread t = new Thread(this::accept, "scripted-upstream");
    t.setDaemon(true);
    t.start();
  }

  public String baseUrl() {
    return "http://127.0.0.1:" + server.getLocalPort();
  }

  /** {@code HTTP/1.1 200 OK} SSE headers, chunked. */
  public static String sseHead() {
    return "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
  }

  /** One HTTP chunk carrying {@code text}. */
  public static byte[] chunk(String text) {
    byte[] b = text.getBytes(StandardCharsets.UTF_8);
    byte[] head = (Integer.toHexString(b.length) + "\r\n").getBytes(StandardCharsets.US_ASCII);
    byte[] out = new byte[head.length + b.length + 2];
    System.arraycopy(head, 0, out, 0, head.length);
    System.arraycopy(b, 0, out, head.length, b.length);
    out[out.length - 2] = '\r';
    out[out.length - 1] = '\n';
    return out;
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket s = server.accept();
        connections++;
        sockets.add(s);
        Thread t = new Thread(() -> serve(s), "scripted-upstream-conn");
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  private void serve(Socket s) {
    try (s) {
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      while (true) {
        Request r = read(in);
        if (r == null) {
          closeSeenNanos = System.nanoTime();
          return;
        }
        requests.add(r);
        script.respond(r, out, in);
        out.flush();
      }
    } catch (IOException e) {
      // the proxy closed the connection
    }
  }

  private static Request read(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int state = 0;
    while (state < 4) {
      int b = in.read();
      if (b < 0) {
        return null;
      }
      head.write(b);
      state = (b == '\r' && (state == 0 || state == 2)) || (b == '\n' && (state == 1 || state == 3)) ? state + 1 : 0;
    }
    String text = head.toString(StandardCharsets.ISO_8859_1);
    String[] lines = text.split("\r\n");
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      if (colon > 0) {
        headers.put(lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).strip());
      }
    }
    int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
    byte[] body = in.readNBytes(length);
    String[] start = lines[0].split(" ");
    return new Request(start[0], start[1], headers, new String(body, StandardCharsets.UTF_8), text);
  }

  @Override
  public void close() {
    try {
      server.close();
      for (Socket s : sockets) {
        s.close();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

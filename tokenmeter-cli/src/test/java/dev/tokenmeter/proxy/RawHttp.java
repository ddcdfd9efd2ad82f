package dev.tokenmeter.proxy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A deliberately dumb HTTP/1.1 client over a plain socket, for byte-level checks: sends one request
 * with {@code Connection: close}, reads until the server closes, and keeps the raw bytes. The body
 * is de-chunked when the response is chunked ({@link Response#complete()} says whether the final
 * chunk arrived).
 */
public final class RawHttp {
  private RawHttp() {}

  /** A raw response. {@code headers} keys are lower-case. */
  public record Response(int status, Map<String, String> headers, byte[] body, boolean complete, byte[] raw) {
    public String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  public static Response post(String baseUrl, String path, String json, String... headerLines) {
    return send(baseUrl, "POST", path, json.getBytes(StandardCharsets.UTF_8), headerLines);
  }

  /**
   * {@code n} POSTs of {@code json}, {@code threads} at a time; returns how many got each status.
   */
  public static Map<Integer, Integer> postMany(int n, int threads, String baseUrl, String path, String json,
      String... headerLines) throws Exception {
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
    try {
      java.util.List<java.util.concurrent.Future<Response>> sent = new java.util.ArrayList<>();
      for (int i = 0; i < n; i++) {
        sent.add(pool.submit(() -> post(baseUrl, path, json, headerLines)));
      }
      Map<Integer, Integer> byStatus = new java.util.TreeMap<>();
      for (java.util.concurrent.Future<Response> f : sent) {
        byStatus.merge(f.get().status(), 1, Integer::sum);
      }
      return byStatus;
    } finally {
      pool.shutdown();
    }
  }

  public static Response get(String baseUrl, String path, String... headerLines) {
    return send(baseUrl, "GET", path, new byte[0], headerLines);
  }

  public static Response send(String baseUrl, String method, String path, byte[] body, String... headerLines) {
    int port = Integer.parseInt(baseUrl.substring(baseUrl.lastIndexOf(':') + 1));
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
      s.setSoTimeout(20_000);
      OutputStream out = s.getOutputStream();
      StringBuilder head = new StringBuilder();
      head.append(method).append(' ').append(path).append(" HTTP/1.1\r\n")
          .append("Host: 127.0.0.1:").append(port).append("\r\n")
          .append("Connection: close\r\n");
      for (String h : headerLines) {
        head.append(h).append("\r\n");
      }
      if (body.length > 0) {
        head.append("Content-Type: application/json\r\nContent-Length: ").append(body.length).append("\r\n");
      }
      head.append("\r\n");
      out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
      out.write(body);
      out.flush();
      return parse(s.getInputStream().readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static Response parse(byte[] raw) {
    String all = new String(raw, StandardCharsets.ISO_8859_1);
    int headEnd = all.indexOf("\r\n\r\n");
    if (headEnd < 0) {
      return new Response(-1, Map.of(), new byte[0], false, raw);
    }
    String[] lines = all.substring(0, headEnd).split("\r\n");
    int status = Integer.parseInt(lines[0].split(" ")[1]);
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      headers.put(lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).strip());
    }
    int start = headEnd + 4;
    if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      int i = start;
      while (true) {
        int lineEnd = all.indexOf("\r\n", i);
        if (lineEnd < 0) {
          return new Response(status, headers, body.toByteArray(), false, raw);
        }
        int size = Integer.parseInt(all.substring(i, lineEnd).split(";")[0].strip(), 16);
        if (size == 0) {
          return new Response(status, headers, body.toByteArray(), true, raw);
        }
        int dataStart = lineEnd + 2;
        int available = Math.min(size, raw.length - dataStart);
        body.write(raw, dataStart, Math.max(0, available));
        if (available < size) {
          return new Response(status, headers, body.toByteArray(), false, raw);
        }
        i = dataStart + size + 2;
      }
    }
    byte[] body = java.util.Arrays.copyOfRange(raw, start, raw.length);
    String length = headers.get("content-length");
    boolean complete = length == null || Integer.parseInt(length) == body.length;
    return new Response(status, headers, body, complete, raw);
  }

  /** Reads all of {@code in}. */
  static byte[] readAll(InputStream in) throws IOException {
    return in.readAllBytes();
  }
}

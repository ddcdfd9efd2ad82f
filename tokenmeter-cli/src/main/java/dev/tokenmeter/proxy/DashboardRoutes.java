package dev.tokenmeter.proxy;

import dev.tokenmeter.proxy.dashboard.AdminGate;
import dev.tokenmeter.proxy.dashboard.BoardJson;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.List;
import java.util.Locale;

/**
 * {@code GET /dashboard} (the page) and {@code GET /dashboard/data?window=5m} (its JSON feed),
 * answered by the proxy itself: never passed upstream, never metered. docs/PROXY.md, "Dashboard".
 */
final class DashboardRoutes {
  /** The page may load nothing from elsewhere and talk to its own origin only. */
  private static final String POLICY = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline';"
      + " connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'";
  private static final byte[] PAGE = BoardJson.page();

  private DashboardRoutes() {}

  /** Whether {@code path} is the dashboard's. */
  static boolean owns(String path) {
    return path.equals("/dashboard") || path.startsWith("/dashboard/");
  }

  /** What to do with a dashboard request. */
  sealed interface Answer {
    /** Write {@code response}. */
    record Now(FullHttpResponse response) implements Answer {}

    /** Compute the feed of the last {@code windowSeconds} with {@link #feed}, off the event loop. */
    record Feed(long windowSeconds) implements Answer {}
  }

  /** The answer to {@code req}, whose path {@link #owns} the dashboard. */
  static Answer answer(ProxyContext ctx, FullHttpRequest req, boolean keepAlive) {
    FullHttpResponse now = check(ctx, req, keepAlive);
    if (now != null) {
      return new Answer.Now(now);
    }
    QueryStringDecoder q = new QueryStringDecoder(req.uri());
    if (q.rawPath().equals("/dashboard")) {
      FullHttpResponse r = ok(PAGE, "text/html; charset=utf-8");
      r.headers().set("content-security-policy", POLICY).set("referrer-policy", "no-referrer");
      return new Answer.Now(r);
    }
    String window = first(q, "window");
    try {
      return new Answer.Feed(windowSeconds(window == null ? "5m" : window));
    } catch (IllegalArgumentException e) {
      return new Answer.Now(Responses.error(400, "tokenmeter proxy: " + e.getMessage(), "invalid_request_error",
          "bad_window", null, keepAlive));
    }
  }

  /** The feed: one pass over the window's requests, so never on an event loop. */
  static FullHttpResponse feed(ProxyContext ctx, long windowSeconds) {
    return ok(BoardJson.write(ctx.board.view(windowSeconds)), "application/json");
  }

  /** The refusal of {@code req} (wrong method or path, no admin token), or null when it may go on. */
  private static FullHttpResponse check(ProxyContext ctx, FullHttpRequest req, boolean keepAlive) {
    QueryStringDecoder q = new QueryStringDecoder(req.uri());
    String path = q.rawPath();
    if (!req.method().equals(HttpMethod.GET)) {
      return Responses.error(405, "tokenmeter proxy: the dashboard answers GET only", "invalid_request_error",
          "method_not_allowed", null, keepAlive);
    }
    if (!path.equals("/dashboard") && !path.equals("/dashboard/data")) {
      return Responses.error(404, "tokenmeter proxy: no such dashboard path " + path + "; open /dashboard",
          "invalid_request_error", "not_found", null, keepAlive);
    }
    if (ctx.gate.check(req.headers().get(HttpHeaderNames.AUTHORIZATION), first(q, "token"))
        instanceof AdminGate.Verdict.Refused refused) {
      FullHttpResponse r = Responses.error(401, "tokenmeter proxy: " + refused.message(), "invalid_request_error",
          "admin_token", null, keepAlive);
      r.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"tokenmeter dashboard\"");
      return r;
    }
    return null;
  }

  /**
   * {@code 90s}, {@code 5m}, {@code 1h} or plain seconds, 1 s to 1 h.
   *
   * @throws IllegalArgumentException naming the accepted forms
   */
  static long windowSeconds(String text) {
    String t = text.strip().toLowerCase(Locale.ROOT);
    long unit = t.endsWith("h") ? 3600 : t.endsWith("m") ? 60 : 1;
    String digits = t.endsWith("h") || t.endsWith("m") || t.endsWith("s") ? t.substring(0, t.length() - 1) : t;
    long seconds = -1;
    if (!digits.isEmpty() && digits.length() <= 6 && digits.chars().allMatch(Character::isDigit)) {
      seconds = Long.parseLong(digits) * unit;
    }
    if (seconds < 1 || seconds > 3600) {
      throw new IllegalArgumentException("window '" + text + "' is not 1s to 1h; write e.g. window=5m");
    }
    return seconds;
  }

  private static String first(QueryStringDecoder q, String name) {
    List<String> v = q.parameters().get(name);
    return v == null || v.isEmpty() ? null : v.get(0);
  }

  private static FullHttpResponse ok(byte[] body, String contentType) {
    FullHttpResponse r =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, Unpooled.wrappedBuffer(body));
    r.headers()
        .set(HttpHeaderNames.CONTENT_TYPE, contentType)
        .set(HttpHeaderNames.CACHE_CONTROL, "no-store")
        .set("x-content-type-options", "nosniff")
        .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
    return r;
  }
}

package dev.tokenmeter.proxy.dashboard;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Who may open the dashboard. With an admin token configured, only a request carrying it ({@code
 * Authorization: Bearer TOKEN}, or {@code ?token=TOKEN} on the page's address); without one, anyone
 * who can reach a loopback listener, and nobody when the proxy listens on another address. Tokens
 * are compared as SHA-256 digests with {@link MessageDigest#isEqual} (constant time, whatever the
 * lengths). Immutable, thread-safe.
 */
public final class AdminGate {
  /** Why a request was refused, one sentence naming the fix. */
  public sealed interface Verdict {
    record Allowed() implements Verdict {}

    record Refused(String message) implements Verdict {}
  }

  private static final Verdict.Allowed ALLOWED = new Verdict.Allowed();

  private final boolean loopbackListener;
  private final byte[] tokenDigestOrNull;

  private AdminGate(boolean loopbackListener, byte[] tokenDigestOrNull) {
    this.loopbackListener = loopbackListener;
    this.tokenDigestOrNull = tokenDigestOrNull;
  }

  /**
   * @param loopbackListener whether the proxy listens on a loopback address only
   * @param tokenOrNull the admin token, or null for none
   * @throws IllegalArgumentException for a blank token
   */
  public static AdminGate of(boolean loopbackListener, String tokenOrNull) {
    if (tokenOrNull != null && tokenOrNull.isBlank()) {
      throw new IllegalArgumentException("the admin token is blank; give a long random one, or none");
    }
    return new AdminGate(loopbackListener, tokenOrNull == null ? null : digest(tokenOrNull));
  }

  /** Whether an admin token was configured. */
  public boolean hasToken() {
    return tokenDigestOrNull != null;
  }

  /**
   * Checks a request.
   *
   * @param authorizationOrNull its {@code Authorization} header
   * @param queryTokenOrNull its {@code token} query parameter
   */
  public Verdict check(String authorizationOrNull, String queryTokenOrNull) {
    if (tokenDigestOrNull == null) {
      return loopbackListener
          ? ALLOWED
          : new Verdict.Refused("the proxy listens on a non-loopback address, so its dashboard needs an admin"
              + " token: start it with --admin-token TOKEN (or admin_token in the settings file)");
    }
    String given = null;
    if (authorizationOrNull != null && authorizationOrNull.regionMatches(true, 0, "Bearer ", 0, 7)) {
      given = authorizationOrNull.substring(7).strip();
    } else if (queryTokenOrNull != null) {
      given = queryTokenOrNull;
    }
    if (given != null && MessageDigest.isEqual(digest(given), tokenDigestOrNull)) {
      return ALLOWED;
    }
    return new Verdict.Refused(given == null
        ? "the dashboard needs the admin token: open /dashboard?token=TOKEN or send Authorization: Bearer TOKEN"
        : "wrong admin token for the dashboard");
  }

  /**
   * Checks a scrape of {@code /metrics}: open on a loopback listener (a local Prometheus needs no
   * token); otherwise it needs {@code Authorization: Bearer TOKEN} (Prometheus's {@code
   * authorization} scrape setting), since the series name tenants and models.
   */
  public Verdict checkScrape(String authorizationOrNull) {
    if (loopbackListener) {
      return ALLOWED;
    }
    if (tokenDigestOrNull == null) {
      return new Verdict.Refused("the proxy listens on a non-loopback address, so /metrics needs an admin token:"
              + " start it with --admin-token TOKEN and scrape with Authorization: Bearer TOKEN");
    }
    if (authorizationOrNull != null && authorizationOrNull.regionMatches(true, 0, "Bearer ", 0, 7)
        && MessageDigest.isEqual(digest(authorizationOrNull.substring(7).strip()), tokenDigestOrNull)) {
      return ALLOWED;
    }
    return new Verdict.Refused(authorizationOrNull == null
        ? "/metrics needs the admin token: scrape with Authorization: Bearer TOKEN"
        : "wrong admin token for /metrics");
  }

  private static byte[] digest(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JDK", e);
    }
  }
}

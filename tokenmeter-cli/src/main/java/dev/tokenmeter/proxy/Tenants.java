package dev.tokenmeter.proxy;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * Who a request is billed to: from its API key (a keys file maps keys to tenants) or from a
 * header. Immutable and thread-safe.
 *
 * <p>Keys are kept only as salted hashes: each entry is {@code sha256:SALT:HASH} with its own
 * random 16-byte salt and {@code HASH = SHA-256(SALT ‖ UTF-8 key)}, both hex. API keys are long
 * random strings, so a fast hash with a per-entry salt is enough to make the file useless to
 * whoever reads it (the practice of token stores such as GitHub's); a request's key is checked
 * against every entry, constant-time, about 0.3 µs each. The key itself is never stored, logged or
 * written.
 *
 * @param entries the keys file's entries
 * @param headerOrNull a header naming the tenant ({@code x-tenant}); null for none. With a known key
 *     it chooses among the tenants that key is listed under (the same key on several lines bills
 *     several tenants); without one it may name only a tenant that has no key in the file (a keyed
 *     tenant is billed by its key alone), and only when unknown keys are not refused
 * @param refuseUnknown whether a request with no known key is refused (401) rather than metered as
 *     {@code anonymous} or as its header's tenant
 */
public record Tenants(List<Entry> entries, String headerOrNull, boolean refuseUnknown) {

  /** One key: its tenant, salt and salted hash. */
  public record Entry(String tenant, byte[] salt, byte[] hash) {
    public Entry {
      Objects.requireNonNull(tenant, "tenant");
      salt = salt.clone();
      hash = hash.clone();
    }

    /**
     * Parses {@code TENANT sha256:SALT:HASH}.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static Entry parse(String line) {
      String[] parts = line.strip().split("\\s+");
      String[] h = parts.length == 2 ? parts[1].split(":") : new String[0];
      if (h.length != 3 || !h[0].equals("sha256")) {
        throw new IllegalArgumentException(
            "expected 'TENANT sha256:SALT:HASH' (as 'tokenmeter proxy hash-key' prints it)");
      }
      try {
        byte[] salt = HexFormat.of().parseHex(h[1]);
        byte[] hash = HexFormat.of().parseHex(h[2]);
        if (hash.length != 32 || salt.length < 8) {
          throw new IllegalArgumentException("wrong length");
        }
        return new Entry(parts[0], salt, hash);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "SALT must be at least 16 hex digits and HASH 64 (as 'tokenmeter proxy hash-key' prints them)");
      }
    }

    /** {@code TENANT sha256:SALT:HASH}. */
    public String line() {
      return tenant + " sha256:" + HexFormat.of().formatHex(salt) + ":" + HexFormat.of().formatHex(hash);
    }

    boolean matches(String key) {
      return MessageDigest.isEqual(hash, digest(salt, key));
    }
  }

  /** What a request's headers say about its tenant. */
  public sealed interface Result {
    /** Bill it to {@code name}. */
    record Tenant(String name) implements Result {}

    /**
     * Refuse it: 401 (no known key) or 403 (the key or header may not bill the tenant asked for).
     * {@code message} says why, never the key; {@code tenant} is who asked ({@code anonymous}
     * without a known key), for the refusal's ledger row.
     */
    record Refused(int status, String code, String message, String tenant) implements Result {}
  }

  public Tenants {
    entries = List.copyOf(entries);
  }

  /** Every request is {@code anonymous}. */
  public static Tenants anonymous() {
    return new Tenants(List.of(), null, false);
  }

  /** A new entry for {@code key} with a fresh random salt. */
  public static Entry hash(String tenant, String key) {
    byte[] salt = new byte[16];
    new SecureRandom().nextBytes(salt);
    return new Entry(tenant, salt, digest(salt, key));
  }

  /** The tenant of a request with {@code headers}. */
  public Result resolve(HttpHeaders headers) {
    String key = bearer(headers);
    String named = headerOrNull == null ? null : headers.get(headerOrNull);
    named = named == null || named.isBlank() ? null : named.strip();
    List<String> allowed = key == null ? List.of() : tenantsOf(key);
    if (!allowed.isEmpty()) {
      if (named == null || allowed.contains(named)) {
        return new Result.Tenant(named == null ? allowed.get(0) : named);
      }
      return new Result.Refused(403, "tenant_not_allowed", "This API key may not bill tenant '" + named
          + "' (header " + headerOrNull + "); it bills " + String.join(", ", allowed) + ".", allowed.get(0));
    }
    String anonymous = dev.tokenmeter.ledger.MeteredRequest.ANONYMOUS;
    if (refuseUnknown) {
      return new Result.Refused(401, "invalid_api_key",
          key == null
              ? "No API key provided. Send it as 'Authorization: Bearer KEY'."
              : "Incorrect API key provided.",
          anonymous);
    }
    if (named == null) {
      return new Result.Tenant(anonymous);
    }
    if (keyed(named)) {
      return new Result.Refused(403, "tenant_not_allowed", "Tenant '" + named
          + "' is billed by its API key only: send that key as 'Authorization: Bearer KEY'.", anonymous);
    }
    return new Result.Tenant(named);
  }

  /** The tenants {@code key} is listed under, in file order; every entry is compared (constant time each). */
  private List<String> tenantsOf(String key) {
    List<String> found = List.of();
    for (Entry e : entries) {
      if (e.matches(key) && !found.contains(e.tenant())) {
        found = found.isEmpty() ? new java.util.ArrayList<>(2) : found;
        found.add(e.tenant());
      }
    }
    return found;
  }

  private boolean keyed(String tenant) {
    for (Entry e : entries) {
      if (e.tenant().equals(tenant)) {
        return true;
      }
    }
    return false;
  }

  /** The key of {@code Authorization: Bearer KEY} (or {@code api-key: KEY}), else null. */
  static String bearer(HttpHeaders headers) {
    String auth = headers.get(HttpHeaderNames.AUTHORIZATION);
    if (auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
      String key = auth.substring(7).strip();
      return key.isEmpty() ? null : key;
    }
    String apiKey = headers.get("api-key"); // Azure OpenAI's header
    return apiKey == null || apiKey.isBlank() ? null : apiKey.strip();
  }

  private static byte[] digest(byte[] salt, String key) {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      d.update(salt);
      return d.digest(key.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** The tenants known at start, sorted: the keys file's, and {@code anonymous} unless unknown keys are refused. */
  java.util.SortedSet<String> knownAtStart() {
    java.util.SortedSet<String> known = new java.util.TreeSet<>();
    entries.forEach(e -> known.add(e.tenant()));
    if (!refuseUnknown) {
      known.add(dev.tokenmeter.ledger.MeteredRequest.ANONYMOUS);
    }
    return known;
  }
}

package dev.tokenmeter.proxy;

import java.nio.file.Path;
import java.util.Objects;

/**
 * TLS on the proxy's listener ({@code --tls-cert}, {@code --tls-key}; docs/PROXY.md, "At the
 * edge"). Immutable.
 *
 * @param certFile PEM certificate chain, the server's certificate first
 * @param keyFile PEM private key of that certificate, unencrypted PKCS#8 ({@code -----BEGIN
 *     PRIVATE KEY-----})
 * @param reloadCheckNanos how often both files are read again; a change is loaded for the
 *     connections that open after it
 */
public record ListenerTls(Path certFile, Path keyFile, long reloadCheckNanos) {
  /** 5 s: a renewed certificate is served within seconds, for the cost of reading two small files. */
  public static final long DEFAULT_RELOAD_CHECK_NANOS = 5_000_000_000L;

  public ListenerTls {
    Objects.requireNonNull(certFile, "certFile");
    Objects.requireNonNull(keyFile, "keyFile");
    if (reloadCheckNanos < 1_000_000) {
      throw new IllegalArgumentException("reload check every 1 ms at least, got " + reloadCheckNanos + " ns");
    }
  }

  /** These files, checked every 5 s. */
  public ListenerTls(Path certFile, Path keyFile) {
    this(certFile, keyFile, DEFAULT_RELOAD_CHECK_NANOS);
  }
}

package dev.tokenmeter.proxy;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The listener's TLS context, reloaded when its files change (a renewed certificate is served
 * without a restart). Thread-safe: event loops read {@link #context()} (one volatile read) for each
 * new connection, which keeps the context it opened with; one daemon thread, {@code
 * tokenmeter-tls-reload}, reads both files every {@link ListenerTls#reloadCheckNanos()} (never an
 * event loop: it touches the disk) and swaps in a new context when their bytes changed. Files that
 * do not load (half written, a key not of the certificate) leave the previous context serving and
 * print one line per change on the given stream; the next change is tried again.
 */
final class ServerTls implements AutoCloseable {
  private final ListenerTls files;
  private final PrintStream log;
  private final ScheduledExecutorService checker;
  private volatile SslContext context;
  private volatile long reloads;
  private byte[] certBytes;
  private byte[] keyBytes;

  private ServerTls(ListenerTls files, PrintStream log, SslContext first, byte[] certBytes, byte[] keyBytes) {
    this.files = files;
    this.log = log;
    this.context = first;
    this.certBytes = certBytes;
    this.keyBytes = keyBytes;
    this.checker = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "tokenmeter-tls-reload");
      t.setDaemon(true);
      return t;
    });
    checker.scheduleWithFixedDelay(this::check, files.reloadCheckNanos(), files.reloadCheckNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * Loads the files and starts watching them.
   *
   * @throws IllegalArgumentException in one line naming the file and the fix, when they do not load
   */
  static ServerTls start(ListenerTls files, PrintStream log) {
    byte[] cert = read(files.certFile(), "--tls-cert");
    byte[] key = read(files.keyFile(), "--tls-key");
    return new ServerTls(files, log, context(files, cert, key), cert, key);
  }

  /**
   * The listener's TLS as written ({@code --tls-cert}, {@code --tls-key}), checked: null when
   * neither is given; each mistake one line in {@code errors}.
   */
  static ListenerTls settings(String certOrNull, String keyOrNull, List<String> errors) {
    if (certOrNull == null && keyOrNull == null) {
      return null;
    }
    if (certOrNull == null || keyOrNull == null) {
      errors.add("TLS on the listener needs both --tls-cert CERT.pem and --tls-key KEY.pem (tls_cert, tls_key)");
      return null;
    }
    ListenerTls tls = new ListenerTls(Path.of(certOrNull), Path.of(keyOrNull));
    try {
      check(tls);
    } catch (IllegalArgumentException e) {
      errors.add(e.getMessage());
      return null;
    }
    return tls;
  }

  /**
   * Checks that the files load, for the settings' list of mistakes.
   *
   * @throws IllegalArgumentException in one line naming the file and the fix
   */
  static void check(ListenerTls files) {
    context(files, read(files.certFile(), "--tls-cert"), read(files.keyFile(), "--tls-key"));
  }

  /** The context for a connection opening now. */
  SslContext context() {
    return context;
  }

  /** Times a change of the files was loaded since start. */
  long reloads() {
    return reloads;
  }

  @Override
  public void close() {
    checker.shutdownNow();
  }

  private void check() {
    byte[] cert;
    byte[] key;
    try {
      cert = Files.readAllBytes(files.certFile());
      key = Files.readAllBytes(files.keyFile());
    } catch (IOException e) {
      return; // mid-rename, say: the next check reads them again
    }
    if (Arrays.equals(cert, certBytes) && Arrays.equals(key, keyBytes)) {
      return;
    }
    certBytes = cert;
    keyBytes = key;
    try {
      context = context(files, cert, key);
      reloads++;
      log.println("tokenmeter proxy: TLS certificate reloaded from " + files.certFile());
    } catch (IllegalArgumentException e) {
      log.println("tokenmeter proxy: TLS files changed but do not load, the previous certificate is still served: "
          + e.getMessage());
    }
  }

  private static byte[] read(Path file, String flag) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new IllegalArgumentException(flag + " " + file + ": cannot read it (" + ProxySettings.describe(e) + ")");
    }
  }

  private static SslContext context(ListenerTls files, byte[] certPem, byte[] keyPem) {
    List<X509Certificate> chain;
    try {
      chain = CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(certPem)).stream()
          .map(X509Certificate.class::cast).toList();
    } catch (GeneralSecurityException e) {
      chain = List.of();
    }
    if (chain.isEmpty()) {
      throw new IllegalArgumentException("--tls-cert " + files.certFile()
          + " holds no certificate: give a PEM file (-----BEGIN CERTIFICATE-----), the server's certificate first");
    }
    PrivateKey key = privateKey(files.keyFile(), keyPem);
    if (!matches(key, chain.get(0))) {
      throw new IllegalArgumentException("--tls-key " + files.keyFile() + " is not the key of the certificate in "
          + files.certFile() + "; give the pair that belong together");
    }
    try {
      return SslContextBuilder.forServer(key, chain.toArray(X509Certificate[]::new)).build();
    } catch (IOException e) {
      throw new IllegalArgumentException("--tls-cert " + files.certFile() + ": cannot set up TLS (" + e.getMessage() + ")");
    }
  }

  /** An unencrypted PKCS#8 PEM key, RSA, EC or Ed25519. */
  private static PrivateKey privateKey(Path file, byte[] pem) {
    String text = new String(pem, StandardCharsets.US_ASCII);
    String begin = "-----BEGIN PRIVATE KEY-----";
    int from = text.indexOf(begin);
    int to = text.indexOf("-----END PRIVATE KEY-----");
    if (from < 0 || to < from) {
      throw new IllegalArgumentException("--tls-key " + file + " holds no unencrypted PKCS#8 key (-----BEGIN PRIVATE"
          + " KEY-----); convert it with 'openssl pkcs8 -topk8 -nocrypt -in KEY -out key.pem'");
    }
    byte[] der;
    try {
      der = Base64.getMimeDecoder().decode(text.substring(from + begin.length(), to));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--tls-key " + file + ": the key is not valid base64");
    }
    for (String alg : List.of("RSA", "EC", "Ed25519")) {
      try {
        return KeyFactory.getInstance(alg).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException e) {
        // try the next algorithm
      }
    }
    throw new IllegalArgumentException("--tls-key " + file + ": not an RSA, EC or Ed25519 private key");
  }

  /** Whether {@code key} signs what the certificate's public key verifies. */
  private static boolean matches(PrivateKey key, X509Certificate cert) {
    String alg = switch (key.getAlgorithm()) {
      case "RSA" -> "SHA256withRSA";
      case "EC" -> "SHA256withECDSA";
      default -> "Ed25519";
    };
    try {
      byte[] probe = "tokenmeter".getBytes(StandardCharsets.US_ASCII);
      Signature s = Signature.getInstance(alg);
      s.initSign(key);
      s.update(probe);
      byte[] sig = s.sign();
      Signature v = Signature.getInstance(alg);
      v.initVerify(cert.getPublicKey());
      v.update(probe);
      return v.verify(sig);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }
}

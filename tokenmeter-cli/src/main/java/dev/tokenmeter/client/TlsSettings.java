package dev.tokenmeter.client;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.net.Socket;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;
import java.util.Collection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * How an {@code https://} endpoint's certificate is checked: against the JDK's default trust store
 * (the default), against the certificates of a PEM file (a private CA, a self-signed server), or
 * not at all ({@code insecure}, for a test server; the traffic stays encrypted but anyone in the
 * middle could answer). The same settings serve the Netty client and the JDK pre-flight client, so
 * the two never disagree about a server.
 *
 * @param caCertFile PEM file of trusted certificates, null for the JDK's default trust store
 * @param insecure accept any certificate and host name
 */
public record TlsSettings(Path caCertFile, boolean insecure) {

  /** The JDK's default trust store, host names checked. */
  public static final TlsSettings DEFAULT = new TlsSettings(null, false);

  public TlsSettings {
    if (insecure && caCertFile != null) {
      throw new IllegalArgumentException("give either --ca-cert or --insecure, not both");
    }
  }

  /**
   * The client context for Netty (bench's endpoint, the proxy's https upstreams); an {@link
   * IllegalArgumentException} names a bad CA file.
   */
  public SslContext nettyContext() {
    try {
      SslContextBuilder b = SslContextBuilder.forClient();
      if (insecure) {
        b.trustManager(new TrustAll()).endpointIdentificationAlgorithm(null);
      } else if (caCertFile != null) {
        b.trustManager(trustManagerFactory());
      }
      return b.build();
    } catch (IOException e) {
      throw new IllegalStateException("cannot initialise TLS: " + e.getMessage(), e);
    }
  }

  /** The same trust decisions as a JDK {@link SSLContext}, for {@link java.net.http.HttpClient}. */
  public SSLContext jdkContext() {
    try {
      if (!insecure && caCertFile == null) {
        return SSLContext.getDefault();
      }
      TrustManager[] tms =
          insecure ? new TrustManager[] {new TrustAll()} : trustManagerFactory().getTrustManagers();
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(null, tms, new SecureRandom());
      return ctx;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot initialise TLS: " + e.getMessage(), e);
    }
  }

  private TrustManagerFactory trustManagerFactory() {
    Collection<? extends Certificate> certs;
    try (InputStream in = Files.newInputStream(caCertFile)) {
      certs = CertificateFactory.getInstance("X.509").generateCertificates(in);
    } catch (IOException e) {
      throw new IllegalArgumentException("--ca-cert " + caCertFile + ": cannot read it (" + e.getMessage() + ")");
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "--ca-cert " + caCertFile + " holds no readable certificate: give a PEM file"
              + " (-----BEGIN CERTIFICATE-----)");
    }
    if (certs.isEmpty()) {
      throw new IllegalArgumentException(
          "--ca-cert " + caCertFile + " holds no certificate: give a PEM file (-----BEGIN CERTIFICATE-----)");
    }
    try {
      KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
      ks.load(null, null);
      int i = 0;
      for (Certificate c : certs) {
        ks.setCertificateEntry("ca-" + i++, c);
      }
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(ks);
      return tmf;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot build a trust store from --ca-cert: " + e.getMessage(), e);
    }
  }

  /**
   * Accepts every certificate and host name. Extended, because the JDK wraps a plain {@code
   * X509TrustManager} in one that still checks the host name, which --insecure must not.
   */
  private static final class TrustAll extends X509ExtendedTrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}

package dev.tokenmeter.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * A self-signed EC certificate for {@code CN=localhost}, {@code 127.0.0.1}, made with the JDK's
 * keytool, valid 2 days: the server's key manager and the certificate as PEM, for a client to trust.
 *
 * @param keyManager the server side's key manager
 * @param caPem the certificate, PEM
 */
public record SelfSignedCert(X509ExtendedKeyManager keyManager, Path caPem) {
  private static final String PASSWORD = "changeit";

  /** Makes one in {@code dir}. */
  public static SelfSignedCert create(Path dir) throws Exception {
    Path ks = dir.resolve("server.p12");
    Path caPem = dir.resolve("ca.pem");
    keytool("-genkeypair", "-alias", "tm", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
        "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-validity", "2", "-storetype", "PKCS12",
        "-keystore", ks.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD);
    keytool("-exportcert", "-rfc", "-alias", "tm", "-keystore", ks.toString(), "-storepass", PASSWORD,
        "-file", caPem.toString());
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(ks)) {
      store.load(in, PASSWORD.toCharArray());
    }
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(store, PASSWORD.toCharArray());
    return new SelfSignedCert((X509ExtendedKeyManager) kmf.getKeyManagers()[0], caPem);
  }

  /** Writes the certificate's private key to {@code file} as unencrypted PKCS#8 PEM, as {@code --tls-key} reads it. */
  public Path writeKeyPem(Path file) throws java.io.IOException {
    byte[] der = keyManager.getPrivateKey("tm").getEncoded();
    String b64 = java.util.Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der);
    return Files.writeString(file, "-----BEGIN PRIVATE KEY-----\n" + b64 + "\n-----END PRIVATE KEY-----\n");
  }

  private static void keytool(String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(output).isZero();
  }
}

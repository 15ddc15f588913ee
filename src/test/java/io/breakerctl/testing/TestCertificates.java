package io.breakerctl.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Certificates made for a test by the JDK's {@code keytool} (no OpenSSL needed): a CA, and server
 * certificates it signs, written as PEM files a {@code redis-server --tls-port} reads ({@link
 * Server#certFile()}, {@link Server#keyFile()}) and a client trusts ({@link #caFile()}). EC P-256
 * keys, valid for two days.
 */
public final class TestCertificates {
  private static final String PASS = "changeit";

  private final Path dir;
  private final String name;

  /** A server certificate and its private key, as PEM files. */
  public record Server(Path certFile, Path keyFile) {}

  private TestCertificates(Path dir, String name) {
    this.dir = dir;
    this.name = name;
  }

  /** Makes a CA named {@code name} in {@code dir}. */
  public static TestCertificates authority(Path dir, String name) {
    TestCertificates ca = new TestCertificates(dir, name);
    ca.keyPair(name, "-ext", "bc:c");
    ca.keytool(
        "-exportcert",
        "-rfc",
        "-alias",
        name,
        "-keystore",
        ca.store(name).toString(),
        "-storepass",
        PASS,
        "-file",
        ca.caFile().toString());
    return ca;
  }

  /** The CA's certificate (PEM). */
  public Path caFile() {
    return dir.resolve(name + "-ca.pem");
  }

  /**
   * A server certificate signed by this CA whose subject alternative names are {@code san}, in
   * keytool's syntax, e.g. {@code ip:127.0.0.1} or {@code dns:elsewhere.invalid}.
   */
  public Server server(String alias, String san) {
    return server(alias, san, "+0d", "2");
  }

  /** A server certificate like {@link #server} whose validity ended days ago. */
  public Server expiredServer(String alias, String san) {
    return server(alias, san, "-10d", "1");
  }

  private Server server(String alias, String san, String start, String days) {
    Path store = store(alias);
    keyPair(alias);
    Path csr = dir.resolve(alias + ".csr");
    keytool(
        "-certreq",
        "-alias",
        alias,
        "-keystore",
        store.toString(),
        "-storepass",
        PASS,
        "-file",
        csr.toString());
    Path cert = dir.resolve(alias + ".pem");
    keytool(
        "-gencert",
        "-rfc",
        "-alias",
        name,
        "-keystore",
        store(name).toString(),
        "-storepass",
        PASS,
        "-infile",
        csr.toString(),
        "-outfile",
        cert.toString(),
        "-ext",
        "san=" + san,
        "-validity",
        days,
        "-startdate",
        start);
    Path key = dir.resolve(alias + "-key.pem");
    writeKey(store, alias, key);
    return new Server(cert, key);
  }

  /** A new EC key pair and self-signed certificate under {@code alias} in its own store. */
  private void keyPair(String alias, String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "-genkeypair",
                "-alias",
                alias,
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=" + alias,
                "-validity",
                "2",
                "-keystore",
                store(alias).toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                PASS,
                "-keypass",
                PASS));
    args.addAll(List.of(extra));
    keytool(args.toArray(String[]::new));
  }

  private Path store(String alias) {
    return dir.resolve(alias + ".p12");
  }

  /** The private key as unencrypted PKCS#8 PEM (keytool cannot export one). */
  private static void writeKey(Path store, String alias, Path target) {
    try (InputStream in = Files.newInputStream(store)) {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(in, PASS.toCharArray());
      Key key = ks.getKey(alias, PASS.toCharArray());
      String pem =
          "-----BEGIN PRIVATE KEY-----\n"
              + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                  .encodeToString(key.getEncoded())
              + "\n-----END PRIVATE KEY-----\n";
      Files.writeString(target, pem, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private void keytool(String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    cmd.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new IllegalStateException("keytool " + String.join(" ", args) + " failed: " + out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}

package io.breakerctl.runtime.redis;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import java.util.List;
import javax.net.ssl.TrustManagerFactory;

/**
 * The CA certificates of {@link StoreConfig#caFile()}, read once before connecting: a file that is
 * missing, unreadable or holds no certificate is a configuration error naming the file, never a
 * failed connection.
 */
final class CaFile {
  private CaFile() {}

  /**
   * A trust manager factory trusting exactly the certificates in {@code file} (PEM or DER).
   *
   * @throws IllegalArgumentException naming the file and what is wrong with it
   */
  static TrustManagerFactory trust(Path file) {
    if (!Files.exists(file)) {
      throw new IllegalArgumentException("CA file " + file + " does not exist");
    }
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "CA file " + file + " cannot be read (" + e.getClass().getSimpleName() + ")", e);
    }
    Collection<? extends Certificate> certificates;
    try {
      certificates =
          CertificateFactory.getInstance("X.509")
              .generateCertificates(new ByteArrayInputStream(bytes));
    } catch (CertificateException e) {
      certificates = List.of();
    }
    if (certificates.isEmpty()) {
      throw new IllegalArgumentException(
          "CA file "
              + file
              + " holds no certificate (expected PEM: -----BEGIN CERTIFICATE----- ...)");
    }
    try {
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      int i = 0;
      for (Certificate c : certificates) {
        store.setCertificateEntry("ca-" + i++, c);
      }
      TrustManagerFactory factory =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(store);
      return factory;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalArgumentException("CA file " + file + " cannot be used: " + e, e);
    }
  }
}

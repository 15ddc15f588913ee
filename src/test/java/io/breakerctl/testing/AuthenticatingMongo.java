package io.breakerctl.testing;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.bson.BinData;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import io.netty.channel.Channel;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The in-process MongoDB-wire server of the other tests (mongo-java-server, memory backend) with
 * MongoDB's authentication and authorization added, since no real {@code mongod} can run here
 * (FACTS.md): SCRAM-SHA-256 as MongoDB speaks it ({@code saslStart}/{@code saslContinue}, RFC 7677,
 * verified against the real driver's client side), every command but the handshake refused before
 * authentication, the built-in roles {@code read} and {@code readWrite} on one database enforced
 * per command with MongoDB's own answer ({@code Unauthorized}, code 13, "not authorized on DB to
 * execute command ..."), and {@code connectionStatus} with {@code showPrivileges} in the server's
 * shape.
 *
 * <p>{@code reportsPrivileges(false)} makes it answer {@code connectionStatus} as a server without
 * the command does, so only the write's own refusal tells a client it may not write.
 */
public final class AuthenticatingMongo implements AutoCloseable {

  /** A user of database {@code db} with the built-in role {@code read} or {@code readWrite}. */
  public record User(String name, String password, String db, boolean readWrite) {}

  private static final Set<String> HANDSHAKE =
      Set.of(
          "hello",
          "ismaster",
          "saslstart",
          "saslcontinue",
          "ping",
          "buildinfo",
          "getnonce",
          "endsessions",
          "connectionstatus");

  /** The commands the role {@code read} does not allow (MongoDB's built-in roles). */
  private static final Set<String> WRITES =
      Set.of(
          "insert",
          "update",
          "delete",
          "findandmodify",
          "createindexes",
          "dropindexes",
          "drop",
          "create",
          "renamecollection",
          "dropdatabase");

  private final MongoServer server;
  private final int port;

  private AuthenticatingMongo(List<User> users, boolean reportsPrivileges) {
    server = new MongoServer(new Backend(users, reportsPrivileges));
    server.bind("127.0.0.1", 0);
    port = server.getLocalAddress().getPort();
  }

  /** Starts a server with {@code users} that answers {@code connectionStatus}. */
  public static AuthenticatingMongo start(List<User> users) {
    return new AuthenticatingMongo(users, true);
  }

  /** Starts a server with {@code users} that does not know {@code connectionStatus}. */
  public static AuthenticatingMongo withoutConnectionStatus(List<User> users) {
    return new AuthenticatingMongo(users, false);
  }

  /** A URI that authenticates as {@code user} against its database, database {@code db}. */
  public String uri(User user) {
    return "mongodb://"
        + user.name()
        + ":"
        + user.password()
        + "@127.0.0.1:"
        + port
        + "/"
        + user.db()
        + "?authSource="
        + user.db()
        + "&authMechanism=SCRAM-SHA-256";
  }

  @Override
  public void close() {
    server.shutdownNow();
  }

  /** The memory backend behind a gate of authentication and roles. */
  private static final class Backend extends MemoryBackend {
    private final Map<String, User> users = new HashMap<>();
    private final boolean reportsPrivileges;
    private final Map<Channel, User> authenticated = new ConcurrentHashMap<>();
    private final Map<Channel, Scram> conversations = new ConcurrentHashMap<>();

    Backend(List<User> list, boolean reportsPrivileges) {
      list.forEach(u -> users.put(u.db() + "." + u.name(), u));
      this.reportsPrivileges = reportsPrivileges;
    }

    @Override
    public Document handleCommand(
        Channel channel, String databaseName, String command, Document query) {
      String c = command.toLowerCase(Locale.ROOT);
      switch (c) {
        case "saslstart":
          return saslStart(channel, databaseName, query);
        case "saslcontinue":
          return saslContinue(channel, query);
        case "connectionstatus":
          if (!reportsPrivileges) {
            throw new MongoServerError(
                59, "CommandNotFound", "no such command: 'connectionStatus'");
          }
          return connectionStatus(channel);
        default:
          break;
      }
      if (!HANDSHAKE.contains(c)) {
        User u = authenticated.get(channel);
        if (u == null) {
          throw new MongoServerError(
              13, "Unauthorized", "command " + command + " requires authentication");
        }
        if (!u.db().equals(databaseName) || (WRITES.contains(c) && !u.readWrite())) {
          throw new MongoServerError(
              13,
              "Unauthorized",
              "not authorized on " + databaseName + " to execute command { " + command + ": ... }");
        }
      }
      return super.handleCommand(channel, databaseName, command, query);
    }

    @Override
    public void handleClose(Channel channel) {
      authenticated.remove(channel);
      conversations.remove(channel);
      super.handleClose(channel);
    }

    private Document connectionStatus(Channel channel) {
      User u = authenticated.get(channel);
      List<Document> usersDoc = new ArrayList<>();
      List<Document> roles = new ArrayList<>();
      List<Document> privileges = new ArrayList<>();
      if (u != null) {
        usersDoc.add(new Document("user", u.name()).append("db", u.db()));
        roles.add(new Document("role", u.readWrite() ? "readWrite" : "read").append("db", u.db()));
        List<String> actions =
            new ArrayList<>(List.of("find", "listCollections", "listIndexes", "collStats"));
        if (u.readWrite()) {
          actions.addAll(
              List.of(
                  "insert", "update", "remove", "createIndex", "dropIndex", "createCollection"));
        }
        privileges.add(
            new Document("resource", new Document("db", u.db()).append("collection", ""))
                .append("actions", actions));
      }
      return new Document(
              "authInfo",
              new Document("authenticatedUsers", usersDoc)
                  .append("authenticatedUserRoles", roles)
                  .append("authenticatedUserPrivileges", privileges))
          .append("ok", 1.0);
    }

    private Document saslStart(Channel channel, String db, Document query) {
      if (!"SCRAM-SHA-256".equals(query.get("mechanism"))) {
        throw new MongoServerError(
            2, "BadValue", "Unsupported mechanism " + query.get("mechanism"));
      }
      String first = text(query.get("payload"));
      if (!first.startsWith("n,,")) {
        throw authFailed();
      }
      String bare = first.substring(3);
      Map<String, String> f = fields(bare);
      User u = users.get(db + "." + f.get("n"));
      if (u == null) {
        throw authFailed();
      }
      byte[] salt = new byte[16];
      new SecureRandom().nextBytes(salt);
      byte[] nonce = new byte[18];
      new SecureRandom().nextBytes(nonce);
      String serverFirst =
          "r="
              + f.get("r")
              + Base64.getEncoder().encodeToString(nonce)
              + ",s="
              + Base64.getEncoder().encodeToString(salt)
              + ",i=4096";
      conversations.put(channel, new Scram(u, bare, serverFirst, salt));
      return new Document("conversationId", 1)
          .append("done", false)
          .append("payload", new BinData(serverFirst.getBytes(StandardCharsets.UTF_8)))
          .append("ok", 1.0);
    }

    private Document saslContinue(Channel channel, Document query) {
      Scram s = conversations.remove(channel);
      if (s == null) {
        throw authFailed();
      }
      if (s.verified) {
        // the client's empty last step
        authenticated.put(channel, s.user);
        return new Document("conversationId", 1)
            .append("done", true)
            .append("payload", new BinData(new byte[0]))
            .append("ok", 1.0);
      }
      String fin = text(query.get("payload"));
      int p = fin.lastIndexOf(",p=");
      if (p < 0) {
        throw authFailed();
      }
      String withoutProof = fin.substring(0, p);
      byte[] proof = Base64.getDecoder().decode(fin.substring(p + 3));
      String authMessage = s.clientFirstBare + "," + s.serverFirst + "," + withoutProof;
      try {
        byte[] salted = pbkdf2(s.user.password(), s.salt, 4096);
        byte[] clientKey = hmac(salted, "Client Key");
        byte[] storedKey = MessageDigest.getInstance("SHA-256").digest(clientKey);
        byte[] signature = hmac(storedKey, authMessage);
        byte[] claimed = new byte[proof.length];
        for (int i = 0; i < proof.length; i++) {
          claimed[i] = (byte) (proof[i] ^ signature[i]);
        }
        if (!MessageDigest.isEqual(
            MessageDigest.getInstance("SHA-256").digest(claimed), storedKey)) {
          throw authFailed();
        }
        String serverFinal =
            "v="
                + Base64.getEncoder().encodeToString(hmac(hmac(salted, "Server Key"), authMessage));
        boolean skipEmpty =
            query.get("options") instanceof Document o
                && Boolean.TRUE.equals(o.get("skipEmptyExchange"));
        if (skipEmpty) {
          authenticated.put(channel, s.user);
        } else {
          s.verified = true;
          conversations.put(channel, s);
        }
        return new Document("conversationId", 1)
            .append("done", skipEmpty)
            .append("payload", new BinData(serverFinal.getBytes(StandardCharsets.UTF_8)))
            .append("ok", 1.0);
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
    }

    private static MongoServerError authFailed() {
      return new MongoServerError(18, "AuthenticationFailed", "Authentication failed.");
    }

    private static String text(Object payload) {
      byte[] b = payload instanceof BinData d ? d.getData() : (byte[]) payload;
      return new String(b, StandardCharsets.UTF_8);
    }

    private static Map<String, String> fields(String message) {
      Map<String, String> m = new HashMap<>();
      for (String part : message.split(",")) {
        int eq = part.indexOf('=');
        if (eq > 0) {
          m.put(part.substring(0, eq), part.substring(eq + 1));
        }
      }
      return m;
    }

    private static byte[] pbkdf2(String password, byte[] salt, int iterations)
        throws GeneralSecurityException {
      return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256")
          .generateSecret(new PBEKeySpec(password.toCharArray(), salt, iterations, 256))
          .getEncoded();
    }

    private static byte[] hmac(byte[] key, String message) throws GeneralSecurityException {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(message.getBytes(StandardCharsets.UTF_8));
    }

    /** One SCRAM conversation in progress. */
    private static final class Scram {
      final User user;
      final String clientFirstBare;
      final String serverFirst;
      final byte[] salt;
      boolean verified;

      Scram(User user, String clientFirstBare, String serverFirst, byte[] salt) {
        this.user = user;
        this.clientFirstBare = clientFirstBare;
        this.serverFirst = serverFirst;
        this.salt = salt;
      }
    }
  }
}

package io.breakerctl.runtime.control;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.regex.Pattern;
import org.bson.Document;

/**
 * The collections a {@link ControlDatabase} hands out and their indexes: each collection ensures
 * the indexes before its first write (any insert, update, replace, delete, find-and-modify or bulk
 * write), never for a read, so a review credential that may only read creates nothing. The indexes
 * are created once per database instance, through its {@link ControlDatabase#call}.
 */
final class IndexedCollections {
  private final MongoDatabase database;
  private final ControlDatabase control;
  private volatile boolean indexed;

  IndexedCollections(MongoDatabase database, ControlDatabase control) {
    this.database = database;
    this.control = control;
  }

  /**
   * A collection whose writes ensure the indexes first (see {@link ControlDatabase#collection}).
   */
  @SuppressWarnings("unchecked")
  MongoCollection<Document> collection(String name) {
    return (MongoCollection<Document>) writesEnsureIndexes(database.getCollection(name));
  }

  private Object writesEnsureIndexes(MongoCollection<?> target) {
    InvocationHandler h =
        (proxy, method, args) -> {
          if (WRITES.matcher(method.getName()).lookingAt()) {
            ensureIndexes();
          }
          try {
            Object r = method.invoke(target, args);
            // withReadPreference, withWriteConcern, ...: the same collection, the same rule
            return r instanceof MongoCollection<?> c ? writesEnsureIndexes(c) : r;
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        };
    return Proxy.newProxyInstance(
        MongoCollection.class.getClassLoader(), new Class<?>[] {MongoCollection.class}, h);
  }

  /** The names of the collection methods that write. */
  private static final Pattern WRITES =
      Pattern.compile("insert|update|replace|delete|findOneAnd|bulkWrite|rename");

  /**
   * Creates the collections' unique indexes if missing (see {@link ControlDatabase#ensureIndexes}).
   */
  void ensureIndexes() {
    if (indexed) {
      return;
    }
    synchronized (this) {
      if (indexed) {
        return;
      }
      control.call(
          "create indexes",
          () -> {
            IndexOptions unique = new IndexOptions().unique(true);
            database
                .getCollection(ControlDatabase.POLICY_VERSIONS)
                .createIndex(
                    Indexes.ascending("policyId", "version"), unique.name("policyId_version"));
            database
                .getCollection(ControlDatabase.AUDIT)
                .createIndex(
                    Indexes.ascending("correlationId"),
                    new IndexOptions().unique(true).name("correlationId"));
            database
                .getCollection(ControlDatabase.HISTORY)
                .createIndex(
                    Indexes.ascending("breakerId", "epoch", "streamId"),
                    new IndexOptions().unique(true).name("breakerId_epoch_streamId"));
            // query helpers only; nothing depends on them (the test server ignores them)
            database
                .getCollection(ControlDatabase.HISTORY)
                .createIndex(
                    Indexes.ascending("breakerId", "at"), new IndexOptions().name("breakerId_at"));
            database
                .getCollection(ControlDatabase.NOTES)
                .createIndex(Indexes.ascending("breakerId", "at"), new IndexOptions().name("at"));
            database
                .getCollection(ControlDatabase.DEFERRED)
                .createIndex(
                    Indexes.ascending("breakerId", "status", "createdAt"),
                    new IndexOptions().name("breakerId_status_createdAt"));
            return null;
          });
      indexed = true;
    }
  }
}

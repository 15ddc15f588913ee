package io.breakerctl.runtime.control;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.bson.Document;

/**
 * Reads MongoDB's {@code connectionStatus} answer (with {@code showPrivileges}): whether the
 * authenticated user may do every action the control plane's writes need on its database, on every
 * collection (a privilege on the whole database, on any resource, or on each collection the control
 * plane keeps).
 */
final class ControlPrivileges {
  /** What the control plane's writes do: read, insert, update, delete and create indexes. */
  static final List<String> ACTIONS = List.of("find", "insert", "update", "remove", "createIndex");

  /** The collections the control plane keeps. */
  private static final List<String> COLLECTIONS =
      List.of(
          ControlDatabase.POLICY_VERSIONS,
          ControlDatabase.POLICIES,
          ControlDatabase.AUDIT,
          ControlDatabase.NOTES,
          ControlDatabase.HISTORY,
          ControlDatabase.CURSORS,
          ControlDatabase.GAPS,
          ControlDatabase.SNAPSHOTS,
          ControlDatabase.DEFERRED,
          ControlDatabase.DEPLOYMENTS);

  private ControlPrivileges() {}

  /**
   * The actions missing, comma-separated ({@code ""} when none is, when nobody authenticated, or
   * when {@code status} is null: a server that does not answer the command).
   */
  static String missing(Document status, String database) {
    Document auth = status == null ? null : status.get("authInfo", Document.class);
    if (auth == null || auth.getList("authenticatedUsers", Object.class, List.of()).isEmpty()) {
      return "";
    }
    List<Document> privileges =
        auth.getList("authenticatedUserPrivileges", Document.class, List.of());
    Set<String> missing = new LinkedHashSet<>();
    for (String action : ACTIONS) {
      for (String collection : COLLECTIONS) {
        if (!granted(privileges, database, collection, action)) {
          missing.add(action);
        }
      }
    }
    return String.join(", ", missing);
  }

  /** The authenticated users, e.g. {@code 'reviewer' (db admin)}. */
  static String users(Document status) {
    List<String> names = new ArrayList<>();
    Document auth = status == null ? null : status.get("authInfo", Document.class);
    if (auth != null) {
      for (Document u : auth.getList("authenticatedUsers", Document.class, List.of())) {
        names.add("'" + u.getString("user") + "' (db " + u.getString("db") + ")");
      }
    }
    return names.isEmpty() ? "?" : String.join(", ", names);
  }

  private static boolean granted(
      List<Document> privileges, String database, String collection, String action) {
    for (Document p : privileges) {
      Document r = p.get("resource", Document.class);
      if (r == null || !p.getList("actions", String.class, List.of()).contains(action)) {
        continue;
      }
      if (Boolean.TRUE.equals(r.getBoolean("anyResource"))) {
        return true;
      }
      String db = r.getString("db");
      String c = r.getString("collection");
      if (db != null
          && c != null
          && (db.isEmpty() || db.equals(database))
          && (c.isEmpty() || c.equals(collection))) {
        return true;
      }
    }
    return false;
  }
}

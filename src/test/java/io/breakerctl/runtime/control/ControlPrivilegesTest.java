package io.breakerctl.runtime.control;

import static org.assertj.core.api.Assertions.assertThat;

import org.bson.Document;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * MongoDB's {@code connectionStatus} answers, as a MongoDB 7 server gives them for the built-in
 * roles {@code read}, {@code readWrite} and {@code root} (shapes from the server's documentation).
 */
@DisplayName("the MongoDB user's privileges before a control-plane write")
class ControlPrivilegesTest {

  private static Document status(String user, String privileges) {
    return Document.parse(
        "{authInfo: {authenticatedUsers: [{user: '"
            + user
            + "', db: 'admin'}], authenticatedUserRoles: [], authenticatedUserPrivileges: ["
            + privileges
            + "]}, ok: 1}");
  }

  @Test
  @DisplayName("no authentication (or no such command): nothing to check")
  void noAuthentication() {
    assertThat(ControlPrivileges.missing(null, "breakerctl")).isEmpty();
    assertThat(
            ControlPrivileges.missing(
                Document.parse("{authInfo: {authenticatedUsers: []}, ok: 1}"), "breakerctl"))
        .isEmpty();
  }

  @Test
  @DisplayName("role read on the database: insert, update, remove, createIndex missing")
  void readOnly() {
    Document s =
        status(
            "reviewer",
            "{resource: {db: 'breakerctl', collection: ''}, actions: ['find', 'listIndexes']}");
    assertThat(ControlPrivileges.missing(s, "breakerctl"))
        .isEqualTo("insert, update, remove, createIndex");
    assertThat(ControlPrivileges.users(s)).isEqualTo("'reviewer' (db admin)");
  }

  @Test
  @DisplayName("readWrite on the database, or any resource: nothing missing")
  void readWrite() {
    String rw = "actions: ['find', 'insert', 'update', 'remove', 'createIndex', 'dropIndex']";
    assertThat(
            ControlPrivileges.missing(
                status("op", "{resource: {db: 'breakerctl', collection: ''}, " + rw + "}"),
                "breakerctl"))
        .isEmpty();
    assertThat(
            ControlPrivileges.missing(
                status("root", "{resource: {anyResource: true}, " + rw + "}"), "breakerctl"))
        .isEmpty();
  }

  @Test
  @DisplayName("readWrite on another database, or on one collection only: missing")
  void elsewhere() {
    String rw = "actions: ['find', 'insert', 'update', 'remove', 'createIndex']";
    assertThat(
            ControlPrivileges.missing(
                status("op", "{resource: {db: 'other', collection: ''}, " + rw + "}"),
                "breakerctl"))
        .isEqualTo("find, insert, update, remove, createIndex");
    assertThat(
            ControlPrivileges.missing(
                status("op", "{resource: {db: 'breakerctl', collection: 'notes'}, " + rw + "}"),
                "breakerctl"))
        .isEqualTo("find, insert, update, remove, createIndex");
  }
}

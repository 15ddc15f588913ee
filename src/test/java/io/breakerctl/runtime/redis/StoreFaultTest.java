package io.breakerctl.runtime.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.breakerctl.runtime.store.MalformedBreakerException;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StoreFault;
import io.breakerctl.runtime.store.StorePermissionException;
import io.breakerctl.runtime.store.StoreUnavailableException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Store faults: typed from the reply's error code")
class StoreFaultTest {

  private static StoreException translated(String reply) {
    return StoreErrors.translate("record x:y", new RedisCommandExecutionException(reply));
  }

  @Test
  void serverConditionsAreHardUnavailability() {
    String[][] cases = {
      {"OOM command not allowed when used memory > 'maxmemory'.", "OOM"},
      {"READONLY You can't write against a read only replica.", "READONLY"},
      {"LOADING Redis is loading the dataset in memory", "LOADING"},
      {"BUSY Redis is busy running a script.", "BUSY"},
      {
        "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
        "MASTERDOWN"
      },
      {"CLUSTERDOWN The cluster is down", "CLUSTERDOWN"},
      {"TRYAGAIN Multiple keys request during rehashing of slot", "TRYAGAIN"},
      {"ERR user_script:12: Script attempted to access nonexistent global variable 'x'", "SCRIPT"},
      {
        "ERR Error running script (call to f_1): @user_script:12: @user_script: 12: -OOM command"
            + " not allowed when used memory > 'maxmemory'.",
        "OOM"
      },
    };
    for (String[] c : cases) {
      StoreException e = translated(c[0]);
      assertTrue(e instanceof StoreUnavailableException, c[0]);
      assertEquals(StoreFault.valueOf(c[1]), e.fault(), c[0]);
      assertTrue(e.fault().hard(), c[0]);
      assertTrue(e.getMessage().contains("(" + e.fault().code() + ")"), e.getMessage());
    }
  }

  @Test
  void permissionsAndCredentials() {
    StoreException noperm =
        translated("NOPERM this user has no permissions to run the 'evalsha' command");
    assertTrue(noperm instanceof StorePermissionException);
    assertEquals(StoreFault.NOPERM, noperm.fault());
    StoreException wrongpass = translated("WRONGPASS invalid username-password pair");
    assertTrue(wrongpass instanceof StorePermissionException);
    assertEquals(StoreFault.AUTH, wrongpass.fault());
  }

  @Test
  void errorsOfTheRequestAreNotTheCoordinators() {
    StoreException own = translated("ERR breakerctl record: counts must be >= 0");
    assertEquals(StoreFault.OTHER, own.fault());
    assertFalse(own.fault().hard());
    assertFalse(own instanceof StoreUnavailableException);
    StoreException malformed =
        translated("ERR breakerctl: malformed breaker hash cb:{x:y}: openUntil=bogus");
    assertTrue(malformed instanceof MalformedBreakerException);
    assertEquals(StoreFault.OTHER, malformed.fault());
  }

  @Test
  @DisplayName("WRONGTYPE is typed, as a fault of the data, plain and wrapped by a 6.2 script")
  void wrongTypeIsTyped() {
    StoreException plain =
        translated("WRONGTYPE Operation against a key holding the wrong kind of value");
    assertEquals(StoreFault.WRONGTYPE, plain.fault());
    assertFalse(plain.fault().hard());
    assertFalse(plain instanceof StoreUnavailableException);
    StoreException wrapped =
        translated(
            "ERR Error running script (call to f_1): @user_script:12: @user_script: 12: -WRONGTYPE"
                + " Operation against a key holding the wrong kind of value");
    assertEquals(StoreFault.WRONGTYPE, wrapped.fault());
    assertFalse(wrapped instanceof StoreUnavailableException);
  }

  @Test
  void silencesAreTimeoutsOrUnreachable() {
    StoreException t =
        StoreErrors.translate("acquire x:y", new RedisCommandTimeoutException("timed out"));
    assertEquals(StoreFault.TIMEOUT, t.fault());
    assertFalse(t.fault().hard());
    StoreException u = StoreErrors.translate("acquire x:y", new java.io.IOException("reset"));
    assertEquals(StoreFault.UNREACHABLE, u.fault());
  }

  @Test
  @DisplayName("a Cluster connect refused by an ACL on the seeds is a permission failure")
  void clusterConnectRefusedByAnAcl() {
    RedisException seeds =
        new RedisException("Cannot retrieve cluster partitions from [redis://127.0.0.1:7000]");
    seeds.addSuppressed(
        new RedisCommandExecutionException(
            "NOPERM this user has no permissions to run the 'cluster' command or its subcommand"));
    StoreException e =
        StoreErrors.translate(
            "connect",
            new RedisConnectionException(
                "Unable to establish a connection to Redis Cluster", seeds));
    assertTrue(e instanceof StorePermissionException, e.toString());
    assertEquals(StoreFault.NOPERM, e.fault());
    assertTrue(e.getMessage().contains("'cluster'"), e.getMessage());
    RedisException wrong = new RedisException("Cannot retrieve cluster partitions");
    wrong.addSuppressed(new RedisCommandExecutionException("WRONGPASS invalid username-password"));
    assertEquals(
        StoreFault.AUTH,
        StoreErrors.translate("connect", new RedisConnectionException("Unable", wrong)).fault());
  }
}

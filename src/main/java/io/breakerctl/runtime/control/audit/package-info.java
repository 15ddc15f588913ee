/**
 * The audit trail of manual actions and operators' notes. {@link
 * io.breakerctl.runtime.control.audit.AuditLog} stores one {@link
 * io.breakerctl.runtime.control.audit.AuditRecord} per action in {@code audit}, unique by
 * correlation id, so the same action stored twice (by the CLI, then by the history forwarder from
 * the event stream) is one record; {@link io.breakerctl.runtime.control.audit.AuditSpool} keeps the
 * records MongoDB could not take on local disk until it answers. {@link
 * io.breakerctl.runtime.control.audit.BreakerNotes} are operators' notes on a breaker ({@code
 * notes}), audited as {@link io.breakerctl.runtime.control.audit.AuditAction#NOTE}. Every other
 * part of the control plane writes here; this package uses only the plane's base.
 */
package io.breakerctl.runtime.control.audit;

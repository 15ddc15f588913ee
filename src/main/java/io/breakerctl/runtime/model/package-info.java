/**
 * The model shared by every plane: {@link io.breakerctl.runtime.model.BreakerId}, {@link
 * io.breakerctl.runtime.model.Policy} (defaults and validation), {@link
 * io.breakerctl.runtime.model.State} (stable wire codes), the one table of legal {@link
 * io.breakerctl.runtime.model.Transitions} and the one state function {@link
 * io.breakerctl.runtime.model.EffectiveState}, mirrored by the Lua scripts and tested against them.
 */
package io.breakerctl.runtime.model;

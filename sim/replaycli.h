/* SPDX-License-Identifier: Apache-2.0 */
/* gpupack-sim --replay's command line (docs/simulation.md, "The replay"): sim/main.c hands it
 * the whole argv when --replay is on it. */
#ifndef GPUPACK_SIM_REPLAYCLI_H
#define GPUPACK_SIM_REPLAYCLI_H

/* Runs the replay command; returns the exit status: 0, 1 (a run failed, a file cannot be
 * written), 2 (bad flags or input, naming it). */
int sim_replay_main(int argc, char **argv);

#endif

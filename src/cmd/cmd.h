/*
 * cmd.h — the subcommands of the snowline binary.
 *
 * Adding one: write src/cmd/<name>.c with `int cmd_<name>(int argc, char **argv)`
 * (argv[0] is the subcommand name), declare it here, add a row to
 * `commands[]` in src/main.c, and document it in README.md. Only code under
 * cmd/ parses the command line or exits the process; everything below it
 * returns errors.
 */
#ifndef SL_CMD_H
#define SL_CMD_H

int cmd_node(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_devnet(int argc, char **argv);
int cmd_index(int argc, char **argv);
int cmd_api(int argc, char **argv);
int cmd_up(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_vset(int argc, char **argv);
int cmd_prices(int argc, char **argv);

#endif

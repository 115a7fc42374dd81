/*
 * snowline — an open, self-hostable data platform for the Avalanche primary
 * network. One binary; the first argument names the subcommand.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "util/common.h"
#include "util/version.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{ "up", cmd_up, "everything at once: a devnet node, the indexer and the Data API" },
	{ "node", cmd_node, "serve the container index, /ext/admin, avm, info and health" },
	{ "decode", cmd_decode, "print a container, tx or warp message as JSON" },
	{ "devnet", cmd_devnet, "a node serving a generated local network (or --out: write its history)" },
	{ "index", cmd_index, "read a node's container indexes into the SQL store of the Data API" },
	{ "api", cmd_api, "serve the Data API (/v1) from that store" },
	{ "dump", cmd_dump, "print a store in a canonical text form (to compare two stores)" },
	{ "validator-set", cmd_vset, "a subnet's validators, weights and BLS keys at a P-chain height" },
	{ "prices", cmd_prices,
	  "load daily prices (a CSV file) into the store, for the rewards' historicalPrice" },
};

static int usage(FILE *f)
{
	fprintf(f, "usage: snowline <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < SL_ARRAY_LEN(commands); i++)
		fprintf(f, "  %-14s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n`snowline <command> --help` describes a command's options; `snowline --version` "
		   "names this build.\n");
	return f == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help"))
		return usage(stdout);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		const char *commit = sl_git_commit();
		printf("snowline %s%s%s\n", SL_VERSION, *commit ? " " : "", commit);
		return 0;
	}
	for (size_t i = 0; i < SL_ARRAY_LEN(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "snowline: unknown command '%s'\n", argv[1]);
	return usage(stderr);
}

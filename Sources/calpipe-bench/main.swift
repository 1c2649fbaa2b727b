// calpipe-bench: speed figures for calpipe, one subcommand per benchmark (see CalpipeBench.swift).
CalpipeBench.main()

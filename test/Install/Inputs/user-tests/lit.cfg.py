import tessel.lit
tessel.lit.configure(config, lit_config)

"""Input and output: the CLUTRR CSV format, the dataset writer, staged output folders and dataset folders."""

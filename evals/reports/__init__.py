"""What is drawn from a results folder: per-task metrics, comparisons, trajectories, charts and the HTML report."""

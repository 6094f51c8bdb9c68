"""Model-graded rubrics: caution, diagnosis agreement, and the review of generated cases."""

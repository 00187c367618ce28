"""TEN (AEG, 2021): flip cards, stop before the total passes ten, and collect runs of numbers in four colours."""

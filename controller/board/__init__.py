"""The public big screen (DESIGN's Board port): what the whole room may see, and nothing more."""

enum VolumeFixturesPlaceholder {}

package albedo

// KernelResetNote tells the model that its Python globals are gone.
const KernelResetNote = "The python kernel was restarted: variables, imports and definitions from earlier cells are gone."
